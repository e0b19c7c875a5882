package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/messaging/natstest"
)

// channelEventsOnBroker reads the types and channel ids of the events
// JetStream keeps of the channels stream, partition by partition, each in
// order.
func channelEventsOnBroker(t *testing.T, url string) []string {
	t.Helper()
	var out []string
	// One channel's events are in one partition's stream, in order.
	var messages []*jetstream.RawStreamMsg
	for p := range config.DefaultEventPartitions {
		messages = append(messages, natstest.Messages(t, url, messaging.BrokerPartitionStream("channels", p, config.DefaultEventPartitions))...)
	}
	for _, m := range messages {
		var e struct {
			Channel struct {
				ID string `json:"id"`
			} `json:"shipping_channel"`
		}
		if err := json.Unmarshal(m.Data, &e); err != nil {
			t.Fatalf("message %d: %v", m.Sequence, err)
		}
		out = append(out, m.Header.Get("name")+" "+e.Channel.ID)
	}
	return out
}

func readiness(t *testing.T, env *apptest.Env) (int, map[string]string) {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/readyz"})
	var body map[string]string
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatalf("/readyz: %s", res.Body)
	}
	return res.Status, body
}

// listedChannels reads the channel list, a read model built from events.
func listedChannels(t *testing.T, env *apptest.Env, key string) int {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key})
	var page struct {
		Data []any `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &page); err != nil || res.Status != http.StatusOK {
		t.Fatalf("GET /v1/shipping-channels: %d %s", res.Status, res.Body)
	}
	return len(page.Data)
}

// With EVENT_BROKER_URL, what the API writes reaches the broker's stream of
// its module, and the read models are built from there: with the broker
// down the API still writes, /readyz says why, the list waits, and the
// events written meanwhile arrive, and reach the list, once it is back.
func TestEventsGoThroughTheBrokerAndWaitInTheOutboxWhileItIsDown(t *testing.T) {
	t.Parallel()
	ns := natstest.Start(t)
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.EventBrokerURL = ns.URL }))
	key := env.NewKey("acme")
	first := env.SandboxChannel(key, "First", nil)
	apptest.Eventually(t, 10*time.Second, "the channel's creation on the broker", func() bool {
		return len(channelEventsOnBroker(t, ns.URL)) == 1
	})
	if got := channelEventsOnBroker(t, ns.URL); got[0] != "shipping_channel.created "+first {
		t.Fatalf("on the broker: %v", got)
	}
	if status, body := readiness(t, env); status != http.StatusOK || body["event_broker"] != "ok" {
		t.Fatalf("/readyz with the broker up: %d %v", status, body)
	}
	apptest.Eventually(t, 10*time.Second, "the channel listed", func() bool { return listedChannels(t, env, key) == 1 })

	ns.Stop()
	apptest.Eventually(t, 10*time.Second, "/readyz saying the broker is unreachable", func() bool {
		status, body := readiness(t, env)
		return status == http.StatusOK && strings.Contains(body["event_broker"], "unreachable")
	})
	second := env.SandboxChannel(key, "Second", nil) // 201: the event waits in the outbox
	// The list reads the broker only: the one reader of the channels stream
	// in PostgreSQL is the forwarder, which has taken the event and holds it,
	// waiting for the broker. A list fed from PostgreSQL would have had it
	// as soon.
	apptest.Eventually(t, 10*time.Second, "the forwarder holding the event while the broker is down", func() bool {
		var holding int
		if err := env.DB.Get(&holding, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND state = 'idle in transaction' AND query LIKE '%watermill_offsets_channels%' AND now() - state_change > interval '100 milliseconds'`); err != nil {
			t.Fatal(err)
		}
		return holding > 0
	})
	if n := listedChannels(t, env, key); n != 1 {
		t.Fatalf("%d channels listed with the broker down: the list did not come from the broker", n)
	}

	ns.Restart()
	// A third channel, made after the restart, is forwarded after
	// everything before it: once it is on the broker, nothing earlier is
	// still to come.
	third := env.SandboxChannel(key, "Third", nil)
	forwarded := []string{"shipping_channel.created " + first, "shipping_channel.created " + second, "shipping_channel.created " + third}
	apptest.Eventually(t, 30*time.Second, "the third channel's creation on the broker", func() bool {
		return slices.Contains(channelEventsOnBroker(t, ns.URL), forwarded[2])
	})
	// Three channels' events are in their partitions' streams, each
	// channel's in order; across channels there is no order to keep.
	if got := channelEventsOnBroker(t, ns.URL); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(forwarded))) {
		t.Fatalf("on the broker: %v, want every creation once", got)
	}
	if status, body := readiness(t, env); status != http.StatusOK || body["event_broker"] != "ok" {
		t.Fatalf("/readyz with the broker back: %d %v", status, body)
	}
	back := time.Now()
	apptest.Eventually(t, 30*time.Second, "the three channels listed", func() bool { return listedChannels(t, env, key) == 3 })
	t.Logf("the list caught up %s after the broker's events were all there", time.Since(back).Round(time.Millisecond))
	// /metrics reports the groups' lag on the broker as on PostgreSQL. The
	// list shows a batch's rows before the broker has the batch's
	// acknowledgement, so the lag reaches 0 a moment after the list does.
	// A group's lag is its partitions', each on its own (ADR 0050).
	wants := []string{`shipd_event_handler_lag_messages{consumer_group="broker.forwarder",topic="channels"} 0`}
	for p := range config.DefaultEventPartitions {
		wants = append(wants, fmt.Sprintf(`shipd_event_handler_lag_messages{consumer_group=%q,topic="channels"} 0`, messaging.PartitionGroup("channels.channel_list", p, config.DefaultEventPartitions)))
	}
	apptest.Eventually(t, 10*time.Second, "/metrics reporting no lag", func() bool {
		metrics := string(env.Do(apptest.Request{Method: http.MethodGet, Path: "/metrics"}).Body)
		return !slices.ContainsFunc(wants, func(want string) bool { return !strings.Contains(metrics, want) })
	})
}
