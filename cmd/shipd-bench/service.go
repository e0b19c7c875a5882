package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/postgres"
)

// service is one running shipd and a key of an account without a practical
// rate limit.
type service struct {
	url     string
	db      *sqlx.DB
	key     string
	account string
	channel string
	client  *http.Client
	stop    func()
}

// benchSecretKey is every instance's SECRET_KEY.
const benchSecretKey = "bench-secret-key-0123456789-abcdefghijkl"

// startService starts one instance; tweak changes its configuration.
func startService(ctx context.Context, dsn string, tweak func(*config.Config)) (*service, error) {
	cfg := config.Config{
		DatabaseURL: dsn, HTTPAddr: "127.0.0.1:0", SecretKey: benchSecretKey,
		LogLevel: "error", DataDir: ".data", SandboxTimeScale: 1,
		// The defaults a user runs: subscribers and workers wake on commits
		// (LISTEN/NOTIFY), these are only their safety nets.
		MessagePollInterval: time.Second, WorkerPollInterval: time.Second,
		ShutdownTimeout: 10 * time.Second, LogWriter: io.Discard,
		// This instance only serves the API: bookings (carrier calls and label
		// rendering) would compete for the same two cores and are not what
		// the write benchmark measures.
		BookingConcurrency: 0,
		CarrierTimeout:     30 * time.Second,
		// Only the instance a benchmark starts for it delivers webhooks, to
		// the bench's own receiver on loopback.
		WebhookConcurrency: 0, WebhookTimeout: 10 * time.Second, WebhookPurgeInterval: time.Hour,
		WebhookAllowPrivateNetworks: true,
	}
	if tweak != nil {
		tweak(&cfg)
	}
	runCtx, cancel := context.WithCancel(ctx)
	app, cleanup, err := shipd.InitializeApp(runCtx, cfg, clock.Real{})
	if err != nil {
		cancel()
		return nil, err
	}
	if err := app.Migrate(runCtx); err != nil {
		cancel()
		cleanup()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		cleanup()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- app.Run(runCtx, ln) }()
	<-app.Running()
	db, err := postgres.Open(ctx, dsn, postgres.Pool{})
	if err != nil {
		cancel()
		cleanup()
		return nil, err
	}
	limit := 1_000_000_000
	info, key, err := auth.NewStore(db, clock.Real{}).CreateKey(ctx, auth.NewKeyRequest{
		AccountName: "bench", Plan: auth.PlanEnterprise, RateLimit: &limit})
	if err != nil {
		cancel()
		cleanup()
		return nil, err
	}
	s := &service{url: "http://" + ln.Addr().String(), db: db, key: key, account: info.AccountID,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}}
	s.stop = func() {
		cancel()
		<-done
		db.Close()
		cleanup()
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ch, err := s.call(http.MethodPost, "/v1/shipping-channels", `{"name":"bench `+ln.Addr().String()+`","provider":"sandbox","settings":{"clientId":"a","clientSecret":"b"}}`)
	if err != nil {
		s.stop()
		return nil, err
	}
	s.channel = ch["data"].(map[string]any)["id"].(string)
	if _, err := s.call(http.MethodPost, "/v1/shipping-channels/"+s.channel+"/validate", ""); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// call sends one request and decodes its JSON answer; non-2xx is an error.
func (s *service) call(method, path, body string) (map[string]any, error) {
	status, raw, err := s.do(method, path, body)
	if err != nil {
		return nil, err
	}
	if status/100 != 2 {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, status, raw)
	}
	var m map[string]any
	return m, json.Unmarshal(raw, &m)
}

func (s *service) do(method, path, body string) (int, []byte, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}
