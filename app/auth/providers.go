package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/markbates/goth"
	"github.com/markbates/goth/providers/github"
	"github.com/markbates/goth/providers/google"
	"github.com/markbates/goth/providers/openidConnect"

	"github.com/checkup-dev/checkup/app/config"
)

// providerTimeout bounds every call to an identity provider: discovery at start-up,
// the code exchange and the user lookup at sign-in.
const providerTimeout = 10 * time.Second

// Provider is one identity provider offered on the sign-in page. Its Name() is the
// {provider} of /auth/{provider} and of the callback BASE_URL/auth/{provider}/callback.
type Provider struct {
	goth.Provider
	Label string // shown as "Sign in with <Label>"
	// emailsURL is where GitHub lists the user's addresses and whether each is
	// verified; empty for providers whose claims say it.
	emailsURL string
	client    *http.Client
}

// Providers are the enabled identity providers, in the order the sign-in page lists
// them. They are built explicitly and held here, never in goth's global registry.
type Providers []Provider

func (ps Providers) find(name string) (Provider, bool) {
	for _, p := range ps {
		if p.Name() == name {
			return p, true
		}
	}
	return Provider{}, false
}

// LoadProviders builds the providers cfg enables: GitHub, Google and an OpenID Connect
// issuer. The issuer's discovery document is read here, at start-up and within a
// timeout, so a wrong OIDC_DISCOVERY_URL ends the start with a sentence instead of
// breaking the first sign-in.
func LoadProviders(ctx context.Context, cfg config.Config) (Providers, error) {
	client := &http.Client{Timeout: providerTimeout}
	var ps Providers
	if cfg.GitHubClientID != "" {
		p := github.New(cfg.GitHubClientID, cfg.GitHubClientSecret, callbackURL(cfg, "github"), "read:user", "user:email")
		p.HTTPClient = client
		ps = append(ps, Provider{Provider: p, Label: "GitHub", emailsURL: github.EmailURL, client: client})
	}
	if cfg.GoogleClientID != "" {
		p := google.New(cfg.GoogleClientID, cfg.GoogleClientSecret, callbackURL(cfg, "google"), "openid", "email", "profile")
		p.HTTPClient = client
		ps = append(ps, Provider{Provider: p, Label: "Google"})
	}
	if cfg.OIDCDiscoveryURL != "" {
		p, err := openIDConnect(ctx, cfg, client)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// discovery is the part of an OpenID Connect discovery document goth needs.
type discovery struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	UserinfoEndpoint      string `json:"userinfo_endpoint"`
}

// openIDConnect reads the discovery document itself (goth's own discovery has no
// timeout) and builds the provider from its endpoints.
func openIDConnect(ctx context.Context, cfg config.Config, client *http.Client) (Provider, error) {
	d, err := discover(ctx, client, cfg.OIDCDiscoveryURL)
	if err != nil {
		return Provider{}, fmt.Errorf("cannot read the OpenID Connect discovery document at OIDC_DISCOVERY_URL (%s): %v; check the URL and that the issuer is reachable from this server",
			cfg.OIDCDiscoveryURL, err)
	}
	p, err := openidConnect.NewCustomisedURL(cfg.OIDCClientID, cfg.OIDCClientSecret, callbackURL(cfg, "oidc"),
		d.AuthorizationEndpoint, d.TokenEndpoint, d.Issuer, d.UserinfoEndpoint, "", "openid", "email", "profile")
	if err != nil {
		return Provider{}, fmt.Errorf("auth: openid connect: %w", err)
	}
	p.SetName("oidc")
	p.HTTPClient = client
	label := "single sign-on"
	if u, err := url.Parse(d.Issuer); err == nil && u.Host != "" {
		label += " (" + u.Host + ")"
	}
	return Provider{Provider: p, Label: label}, nil
}

func discover(ctx context.Context, client *http.Client, discoveryURL string) (discovery, error) {
	ctx, cancel := context.WithTimeout(ctx, providerTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, discoveryURL, nil)
	if err != nil {
		return discovery{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return discovery{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return discovery{}, fmt.Errorf("it answered %s", resp.Status)
	}
	var d discovery
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&d); err != nil {
		return discovery{}, fmt.Errorf("it is not JSON: %v", err)
	}
	if d.Issuer == "" || d.AuthorizationEndpoint == "" || d.TokenEndpoint == "" {
		return discovery{}, fmt.Errorf("it lacks issuer, authorization_endpoint or token_endpoint")
	}
	return d, nil
}

func callbackURL(cfg config.Config, provider string) string {
	return cfg.BaseURL + "/auth/" + provider + "/callback"
}
