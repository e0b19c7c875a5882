package server_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
	"shipd/platform/messaging"
)

func TestReadyWhenTheDatabaseAnswersAndIsMigrated(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	for _, path := range []string{"/healthz", "/readyz"} {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: path})
		if res.Status != http.StatusOK || res.JSON(t)["status"] != "ok" {
			t.Errorf("GET %s: %d %s", path, res.Status, res.Body)
		}
	}
}

// /metrics tells what the instance did: requests by route template, carrier
// calls, webhook attempts, event handler runs and lag, worker queues.
func TestMetricsTellWhatTheInstanceDid(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	receiver, hooks := webhookReceiver(t)
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key,
		Body: map[string]any{"name": "n", "url": receiver, "events": []string{"shipping_channel.created"}}}); res.Status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.Status, res.Body)
	}
	channel := env.ActiveSandboxChannel(key, "Main", nil)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: map[string]any{
		"shipping_channel_id": channel, "reference_number": "ORDER-1",
		"sender_contact":      map[string]any{"company_name": "Acme", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":   map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address": map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"parcels": []map[string]any{{"parcel_type": "package", "length_dimension": 30, "width_dimension": 20, "height_dimension": 10,
			"dimension_unit": "CM", "weight_amount": 1.5, "weight_unit": "KG"}},
	}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create shipment: %d %s", res.Status, res.Body)
	}
	env.Do(apptest.Request{Method: http.MethodGet, Path: "/no/such/path/123"})

	var families map[string]*dto.MetricFamily
	apptest.Eventually(t, 15*time.Second, "the shipment booked, the webhook sent and the channel events fanned out, as /metrics tells", func() bool {
		families = scrape(t, env)
		return value(families, "shipd_carrier_calls_total", "provider", "sandbox", "operation", "create_shipment", "outcome", "ok") == 1 &&
			value(families, "shipd_webhook_attempts_total", "outcome", "2xx") >= 1 &&
			value(families, "shipd_worker_queue_depth", "worker", "shipments.booking") == 0 && // the booking recorded
			// The channel's later events (validated, status changed) reach
			// the fan-out after the one delivered.
			partitionsLag(families, "shipd_event_handler_lag_messages", "webhooks.fan_out.channels", "channels") == 0
	})
	if hooks.Load() == 0 {
		t.Error("the receiver got nothing, yet the metrics count an attempt")
	}
	checks := []struct {
		name   string
		labels []string
		want   func(float64) bool
	}{
		{"shipd_http_requests_total", []string{"method", "POST", "route", "/v1/shipments", "status", "201"}, eq(1)},
		{"shipd_http_requests_total", []string{"method", "GET", "route", "unmatched", "status", "404"}, eq(1)},
		{"shipd_http_request_duration_seconds", []string{"method", "POST", "route", "/v1/shipments", "status", "201"}, eq(1)},
		{"shipd_carrier_calls_total", []string{"provider", "sandbox", "operation", "validate_credentials", "outcome", "ok"}, eq(1)},
		{"shipd_carrier_call_duration_seconds", []string{"provider", "sandbox", "operation", "create_shipment"}, eq(1)},
		// The fan-out handler ran: the webhook went out.
		{"shipd_events_handler_execution_time_seconds", []string{"handler_name", "webhooks.fan_out.channels", "success", "true"}, atLeast(1)},
		{"shipd_worker_queue_depth", []string{"worker", "webhooks.delivery"}, atLeast(0)},
		{"shipd_worker_queue_depth", []string{"worker", "tracking.checker"}, atLeast(0)},
		{"go_goroutines", nil, atLeast(1)},
	}
	for _, c := range checks {
		if got := value(families, c.name, c.labels...); !c.want(got) {
			t.Errorf("%s%v = %v", c.name, c.labels, got)
		}
	}
	for _, name := range []string{"shipd_event_handler_lag_messages", "shipd_event_handler_lag_seconds"} {
		if got := partitionsLag(families, name, "webhooks.fan_out.channels", "channels"); got != 0 {
			t.Errorf("%s of webhooks.fan_out.channels's partitions = %v", name, got)
		}
	}
}

// partitionsLag is the sum of a lag metric over the partition groups of
// group on topic (ADR 0050); -1 when one of them is missing.
func partitionsLag(families map[string]*dto.MetricFamily, name, group, topic string) float64 {
	var sum float64
	for p := range config.DefaultEventPartitions {
		v := value(families, name, "consumer_group", messaging.PartitionGroup(group, p, config.DefaultEventPartitions), "topic", topic)
		if v < 0 {
			return -1
		}
		sum += v
	}
	return sum
}

func eq(v float64) func(float64) bool      { return func(got float64) bool { return got == v } }
func atLeast(v float64) func(float64) bool { return func(got float64) bool { return got >= v } }

func scrape(t *testing.T, env *apptest.Env) map[string]*dto.MetricFamily {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/metrics"})
	if res.Status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", res.Status, res.Body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// value is the sample of name whose labels include the given pairs: a
// counter's or gauge's value, a histogram's count; -1 when there is none.
func value(families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f, ok := families[name]
	if !ok {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}
