package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// apiPollers is how many scripts poll at once in BenchmarkAPITaskPoll.
const apiPollers = 50

// BenchmarkAPITaskPoll is what a CI job's wait costs the server: apiPollers scripts,
// each with its own token, send GET /api/v1/tasks/{id} as fast as they are answered
// (the token's lookup and the task's read), through the real middleware chain. It
// reports the rate, the latencies and the CPU per request:
//
//	go test ./app/web -run '^$' -bench APITaskPoll -benchtime 20000x -count 3
func BenchmarkAPITaskPoll(b *testing.B) {
	pool, _ := dbtest.Isolated(b)
	cfg, _, err := config.Load(func(k string) string { return map[string]string{"API_RATE_BURST": "1000000"}[k] })
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)}).Handler())
	b.Cleanup(srv.Close)
	sess := authtest.NewSession(b, pool, "api-bench@example.com")
	path := "/api/v1/tasks/" + reporttest.Insert(b, pool, sess.User.ID, reporttest.Task{Status: "running"}).ID.String()
	transport := &http.Transport{MaxIdleConns: apiPollers, MaxIdleConnsPerHost: apiPollers}
	b.Cleanup(transport.CloseIdleConnections)
	client := &http.Client{Transport: transport}
	tokens := make([]string, apiPollers)
	for i := range tokens {
		tokens[i] = authtest.NewToken(b, pool, sess.User, "poller")
	}
	get := func(token string) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			b.Error(err)
			return
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	for _, tok := range tokens {
		get(tok) // opens a connection and records the token's first use
	}
	perPoller := max(1, b.N/apiPollers)
	latencies := make([][]time.Duration, apiPollers)
	var wg sync.WaitGroup
	postmaster := apptest.Postmaster(b, pool)
	cpu0 := readCPU(postmaster)
	b.ResetTimer()
	start := time.Now()
	for p := range apiPollers {
		wg.Go(func() {
			for range perPoller {
				t0 := time.Now()
				get(tokens[p])
				latencies[p] = append(latencies[p], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, slices.Concat(latencies...), elapsed)
	reportCPU(b, cpu0, readCPU(postmaster), len(slices.Concat(latencies...)))
}
