package ports_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	channels "shipd/modules/channels/contract"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/apptest"
	"shipd/platform/ids"
	"shipd/platform/messaging"
)

// A channels fan-out group fans out each run of events its transaction
// reads at once. Several events of one channel in one run get deliveries
// whose ids rise in stream order, and so do a later run's, so the receiver
// gets each channel's events in the order they happened. A message read
// again makes nothing. A message whose write fails in the middle of a run
// (a channel id with a NUL byte, which PostgreSQL's text refuses) is set
// aside alone: the run is written again one message at a time, the others
// each once, and then the group goes on in runs.
func TestTheFanOutTakesRunsInStreamOrder(t *testing.T) {
	t.Parallel()
	onBothBackbones(t, func(t *testing.T, b *fanOutBus) {
		got := newReceiver(t, answering(http.StatusNoContent))
		if err := b.app.Commands.CreateSubscription.Handle(t.Context(), command.CreateSubscription{AccountID: "acc_1", SubscriptionID: "wh_1",
			Fields: domain.Fields{Name: "all", URL: got.URL, Events: []string{channels.EventCreated, channels.EventUpdated}, Secret: "s3cret-s3cret", Active: true}}); err != nil {
			t.Fatal(err)
		}
		a, c := newsOf(ids.New(ids.ShippingChannel)), newsOf(ids.New(ids.ShippingChannel))
		var published []string // the events that render, in stream order
		publish := func(events ...messaging.Event) {
			b.publish(events...)
			for _, e := range events {
				if !strings.ContainsRune(snapshot(e).ID, 0) {
					published = append(published, snapshot(e).Name)
				}
			}
		}

		// Committed before the bus starts: the first read finds them all.
		publish(a.created("a-0"), a.updated("a-1"), c.created("c-0"), a.updated("a-2"), a.updated("a-3"))
		b.start()
		awaitLabels(t, got, 5)
		first := b.runs.all()
		if b.backbone == "postgres" && len(first) != 1 {
			t.Errorf("the first five events were fanned out in %d runs, want one", len(first))
		}
		if !slices.ContainsFunc(first, func(run []string) bool { return len(run) > 2 }) {
			t.Errorf("runs %v: want several of channel a's events in one", first)
		}

		// A later run.
		publish(a.updated("a-4"), c.updated("c-1"))
		labels := awaitLabels(t, got, 7)

		// Read again, those make nothing; what follows of channel a
		// would go after anything they made.
		b.redeliver(labels.event("a-1"), labels.event("a-4"))
		publish(a.updated("a-5"))
		awaitLabels(t, got, 8)

		// A poison message in the middle of a run.
		poison := newsOf("ch_\x00poison")
		runsBefore := len(b.runs.all())
		publish(a.updated("a-6"), poison.created("p-0"), c.updated("c-2"), a.updated("a-7"))
		awaitLabels(t, got, 11)
		apptest.Eventually(t, deadline, "the poison message set aside", func() bool { return len(b.deadLetters()) == 1 })
		letters := b.deadLetters()
		var withPoison [][]string
		for _, run := range b.runs.all()[runsBefore:] {
			if slices.Contains(run, letters[0]) {
				withPoison = append(withPoison, run)
			}
		}
		// Its run failed, then it failed alone on each of its six tries.
		if len(withPoison) != 7 || slices.ContainsFunc(withPoison[1:], func(run []string) bool { return len(run) != 1 }) ||
			b.backbone == "postgres" && len(withPoison[0]) != 4 {
			t.Errorf("runs with the poison message: %v; want the four at once, then it alone six times", withPoison)
		}

		// Runs again.
		runsBefore = len(b.runs.all())
		publish(a.updated("a-8"), c.updated("c-3"))
		labels = awaitLabels(t, got, 13)
		if runs := b.runs.all()[runsBefore:]; b.backbone == "postgres" && (len(runs) != 1 || len(runs[0]) != 2) {
			t.Errorf("after the poison the next two events went in runs %v, want one", runs)
		}

		if got, want := byChannel(labels.order), byChannel(published); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the receiver got\n%v\nwant every event once, each channel's in stream order:\n%v", got, want)
		}
		var byDelivery []string
		for _, id := range b.deliveryOrder(len(published)) {
			byDelivery = append(byDelivery, labels.of[id])
		}
		if fmt.Sprint(byDelivery) != fmt.Sprint(published) {
			t.Errorf("deliveries by id\n%v\nwant stream order\n%v", byDelivery, published)
		}
		if letters := b.deadLetters(); len(letters) != 1 || labels.of[letters[0]] != "" {
			t.Errorf("set aside %v, want the poison message alone", letters)
		}
	})
}

// news makes the events of one channel of acc_1.
type news struct{ id string }

func newsOf(channelID string) news { return news{channelID} }

func (n news) event(name string) channels.ChannelEvent {
	return channels.ChannelEvent{AccountID: "acc_1", Version: 1, OccurredAt: t0, ShippingChannel: channels.ShippingChannelSnapshot{
		ID: n.id, Name: name, Provider: "sandbox", Status: "draft", Settings: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}}
}

func (n news) created(name string) messaging.Event {
	return channels.ShippingChannelCreated{ChannelEvent: n.event(name)}
}

func (n news) updated(name string) messaging.Event {
	return channels.ShippingChannelUpdated{ChannelEvent: n.event(name)}
}

// snapshot is the channel a channel's event shows.
func snapshot(e messaging.Event) channels.ShippingChannelSnapshot {
	return e.(interface{ Channel() channels.ChannelEvent }).Channel().ShippingChannel
}

// labels are what a receiver got: each delivery's event id and the name
// of its channel, which the test set to say which event it is.
type labels struct {
	order []string          // names, in the order received
	of    map[string]string // name by event id
}

func (l labels) event(name string) string {
	for id, n := range l.of {
		if n == name {
			return id
		}
	}
	return ""
}

// byChannel sorts event names ("a-3": channel a's fourth) by channel,
// keeping their order.
func byChannel(names []string) map[string][]string {
	out := map[string][]string{}
	for _, n := range names {
		channel, _, _ := strings.Cut(n, "-")
		out[channel] = append(out[channel], n)
	}
	return out
}

// awaitLabels waits for n deliveries at rc and reads them.
func awaitLabels(t *testing.T, rc *receiver, n int) labels {
	t.Helper()
	l := labels{of: map[string]string{}}
	for _, r := range rc.await(t, n) {
		var body struct {
			ID   string `json:"id"`
			Data struct {
				ShippingChannel struct {
					Name string `json:"name"`
				} `json:"shipping_channel"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		l.order = append(l.order, body.Data.ShippingChannel.Name)
		l.of[body.ID] = body.Data.ShippingChannel.Name
	}
	return l
}
