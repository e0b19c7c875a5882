package ports_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// A graceful shutdown lets the attempt in flight finish and be logged, and
// gives back the leases of deliveries claimed but not attempted, so another
// instance sends them at once instead of when the leases run out.
func TestShutdownFinishesAttemptInFlightAndReleasesTheRest(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.WebhookConcurrency = 1 }))
	key := env.NewKey("acme")
	release := make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			<-release // the first attempt is in flight when shutdown starts
		}
		w.WriteHeader(http.StatusNoContent)
	})
	subscribe(t, env, key, map[string]any{"name": "n", "url": rc.URL, "events": []string{"shipping_channel.created"}})
	for _, name := range []string{"A", "B", "C", "D"} {
		newChannel(t, env, key, name)
	}
	rc.await(t, 1)
	// One slot busy, two more claimed into the worker's queue behind it, and
	// the fourth delivery made but not claimed.
	apptest.Eventually(t, 10*time.Second, "queued claims", func() bool {
		var leased, made int
		_ = env.DB.Get(&leased, `SELECT count(*) FROM webhooks.deliveries WHERE lease_until IS NOT NULL AND attempts = 0`)
		_ = env.DB.Get(&made, `SELECT count(*) FROM webhooks.deliveries`)
		return leased == 3 && made == 4
	})

	stopped := make(chan error, 1)
	go func() { stopped <- env.Stop() }()
	webhooks := env.Process("webhooks")
	apptest.Eventually(t, 10*time.Second, "the process delivering webhooks logs that it is shutting down", func() bool {
		return strings.Contains(webhooks.Logs.String(), "shipd shutting down")
	})
	close(release)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}

	if got := len(rc.requests()); got != 1 {
		t.Errorf("%d attempts sent, want only the one in flight", got)
	}
	var logged []string
	if err := env.DB.Select(&logged, `SELECT status FROM webhooks.delivery_log`); err != nil {
		t.Fatal(err)
	}
	if len(logged) != 1 || logged[0] != "success" {
		t.Errorf("logs %v, want the in-flight attempt logged as success", logged)
	}
	var pending, stillLeased int
	if err := env.DB.Get(&pending, `SELECT count(*) FROM webhooks.deliveries WHERE outcome = 'pending' AND attempts = 0`); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&stillLeased, `SELECT count(*) FROM webhooks.deliveries WHERE lease_until IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if pending != 3 || stillLeased != 0 {
		t.Errorf("%d pending deliveries, %d still leased: want 3 pending, none leased", pending, stillLeased)
	}
}
