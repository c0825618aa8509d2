package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/static"
)

// routes is the one route table of the application, with its middleware chain.
func (s *Server) routes() {
	e := s.echo
	e.Use(middleware.Recover())
	e.Use(middleware.RequestID())
	e.Use(s.requestLogger())
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
		ReferrerPolicy:        "same-origin",
		ContentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
	}))
	e.Use(s.cacheHeaders())
	e.Use(s.bodyDeadlines())
	e.Use(formLimits())
	e.Use(s.auth.Guard(access))
	e.Use(s.localize())
	e.Use(textFields())

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metricsHere())
	e.StaticFS("/static", echo.MustSubFS(static.FS, ""))
	e.GET("/favicon.ico", s.favicon)

	e.GET("/login", s.auth.LoginPage)
	e.GET("/auth/:provider", s.auth.Begin)
	e.GET("/auth/:provider/callback", s.auth.Callback)
	e.POST("/auth/local", s.auth.LocalSignIn)
	e.POST("/logout", s.auth.Logout)
	e.POST("/language", s.auth.ChooseLanguage)

	e.GET("/", s.homeShow)
	e.GET("/tasks", s.taskList)
	e.GET("/tasks/new", s.taskNew)
	e.POST("/tasks", s.taskCreate)
	e.GET("/tasks/:id", s.taskShow)
	e.GET("/tasks/:id/progress", s.taskProgress)
	e.POST("/tasks/:id/cancel", s.taskCancel)
	e.POST("/tasks/:id/rerun", s.taskRerun)
	e.POST("/tasks/:id/delete", s.taskDelete)
	e.DELETE("/tasks/:id", s.taskDeleteHTMX)
	e.GET("/tasks/:id/conversations", s.conversationList)
	e.GET("/tasks/:id/conversations/count", s.conversationCount)
	e.GET("/tasks/:id/conversations/:seq", s.conversationShow)
	e.POST("/tasks/:id/conversations/:seq/label", s.conversationLabel)
	e.GET("/tasks/:id/learning", s.taskLearning)
	e.GET("/tasks/:id/compare", s.taskCompare)
	e.GET("/tasks/:id/compare.json", s.taskCompareJSON)
	e.POST("/tasks/:id/clusters/:cluster/expected", s.clusterExpectedMark)
	e.DELETE("/tasks/:id/clusters/:cluster/expected", s.clusterExpectedUndo)
	e.POST("/tasks/:id/clusters/:cluster/expected/delete", s.clusterExpectedUndo)
	e.POST("/tasks/:id/clusters/:cluster/not-expected", s.clusterNotExpectedMark)
	e.DELETE("/tasks/:id/clusters/:cluster/not-expected", s.clusterNotExpectedUndo)
	e.POST("/tasks/:id/clusters/:cluster/not-expected/delete", s.clusterNotExpectedUndo)
	for _, d := range downloads() {
		e.GET("/tasks/:id/"+d.name, s.taskDownload(d))
	}

	e.GET("/agents", s.agentList)
	e.GET("/agents/:agent", s.agentShow)

	e.GET("/settings/tokens", s.tokenList)
	e.POST("/settings/tokens", s.tokenCreate)
	e.POST("/settings/tokens/:token/revoke", s.tokenRevoke)
	e.GET("/settings/expected", s.expectedRuleList)
	e.POST("/settings/expected/:rule/delete", s.expectedRuleDelete)
	e.POST("/settings/expected/:rule/widen", s.expectedRuleWiden)
	e.DELETE("/settings/expected/:rule", s.expectedRuleDelete)

	e.GET(apiPrefix+"/openapi.json", s.apiOpenAPI)
	api := e.Group(apiPrefix, s.apiRateLimit)
	api.POST("/tasks", s.apiTaskCreate)
	api.GET("/tasks", s.apiTaskList)
	api.GET("/tasks/:id", s.apiTaskShow)
	api.POST("/tasks/:id/cancel", s.apiTaskCancel)
	api.DELETE("/tasks/:id", s.apiTaskDelete)
	for _, d := range downloads() {
		api.GET("/tasks/:id/"+d.name, s.taskDownload(d))
	}
	api.GET("/tasks/:id/compare.json", s.apiTaskCompare)
	api.GET("/tasks/:id/conversations", s.apiTaskConversations)
	api.POST("/tasks/:id/labels", s.apiTaskLabels)

	e.RouteNotFound("/api/*", func(c echo.Context) error { return echo.NewHTTPError(http.StatusNotFound) })
	e.RouteNotFound("/*", func(c echo.Context) error { return errNoPage })
}

// metricsHere serves /metrics beside the pages, unless METRICS_ADDR serves it apart:
// then this address answers a plain 404, without the sign-in redirect of an unknown
// page, so a scraper pointed here by mistake sees that nothing is here.
func (s *Server) metricsHere() echo.HandlerFunc {
	if s.deps.Config.MetricsAddr != "" {
		return func(echo.Context) error { return echo.NewHTTPError(http.StatusNotFound) }
	}
	return echo.WrapHandler(s.deps.Metrics.Handler())
}

// access says what each route needs from a session: every route is private (a
// signed-in user) unless listed here; the API's routes need a token instead.
func access(route string) auth.Access {
	switch {
	case route == "/healthz", route == "/readyz", route == "/metrics", route == "/favicon.ico", strings.HasPrefix(route, "/static"),
		route == apiPrefix+"/openapi.json":
		return auth.Open
	case strings.HasPrefix(route, "/api/"):
		return auth.Token
	case route == "/login", route == "/language", strings.HasPrefix(route, "/auth/"):
		return auth.Public
	}
	return auth.Private
}
