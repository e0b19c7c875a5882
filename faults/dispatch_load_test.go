//go:build faults

package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// dispatchLoad is shipping days under way: shipments created on several
// sandbox channels (through the shipments process), and through the
// dispatch process courier pickups ordered for each channel's coming days
// and manifests made of what the channels booked. Every request that
// reached a process is kept with its answer; one refused at connect (the
// process was down) reached nothing, and its pickup's channel and date are
// ordered again later.
type dispatchLoad struct {
	shipments, dispatch client
	channels            []string

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	mu        sync.Mutex
	slots     []pickupSlot // channel days not ordered yet, in order
	posts     []answer     // shipment POSTs
	pickups   []dispatchPost
	manifests []dispatchPost
	refused   int // requests refused at connect
}

// pickupSlot is one channel's day: one pickup each, the API's rule.
type pickupSlot struct {
	channel, date string
}

// dispatchPost is one POST to the dispatch process and its answer.
type dispatchPost struct {
	channel string
	id      string // when answered 2xx
	answer
}

// The load's rates: shipments 2 × 10/s, pickups 4 × 3.3/s, manifests 2 ×
// 1.7/s, which two shared cores keep up with beside the three processes.
const (
	dispatchShipmentWorkers = 2
	dispatchShipmentEvery   = 100 * time.Millisecond
	dispatchPickupWorkers   = 4
	dispatchPickupEvery     = 300 * time.Millisecond
	dispatchManifestWorkers = 2
	dispatchManifestEvery   = 600 * time.Millisecond
)

// pickupSlots are the channels' days a pickup can be ordered for: from
// tomorrow (UTC: the sandbox's order-by times of a day never pass during
// the test) to 58 days ahead (the API takes 60 from the day in UTC−12),
// Sundays left out (the sandbox collects none). Ordered by day, so the
// channels' pickups interleave.
func pickupSlots(channels []string, now time.Time) []pickupSlot {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var out []pickupSlot
	for d := 1; d <= 58; d++ {
		day := today.AddDate(0, 0, d)
		if day.Weekday() == time.Sunday {
			continue
		}
		for _, ch := range channels {
			out = append(out, pickupSlot{channel: ch, date: day.Format(time.DateOnly)})
		}
	}
	return out
}

// pickupBody orders the sandbox's morning window, which every day it
// collects on offers, for a parcel count and weight.
func pickupBody(s pickupSlot) map[string]any {
	return map[string]any{
		"shipping_channel_id": s.channel, "date": s.date, "ready_from": "09:00", "ready_until": "12:00",
		"address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"contact":      map[string]any{"company_name": "Acme", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"parcel_count": 3, "total_weight_kg": 4.5,
	}
}

func newDispatchLoad(shipments, dispatch client, channels []string) *dispatchLoad {
	return &dispatchLoad{shipments: shipments, dispatch: dispatch, channels: channels, stop: make(chan struct{}),
		slots: pickupSlots(channels, time.Now().UTC())}
}

// startShipments starts the shipment creators, round the channels.
func (l *dispatchLoad) startShipments() {
	for w := range dispatchShipmentWorkers {
		l.wg.Go(func() {
			for n := 0; !l.stopped(); n++ {
				ch := l.channels[(w+n*dispatchShipmentWorkers)%len(l.channels)]
				a := l.shipments.call(http.MethodPost, "/v1/shipments", shipmentBody(ch, fmt.Sprintf("DISPATCH-%d-%d", w, n)))
				l.mu.Lock()
				if refusedAtConnect(a) {
					l.refused++
				} else {
					l.posts = append(l.posts, a)
				}
				l.mu.Unlock()
				l.pace(a.sent, dispatchShipmentEvery)
			}
		})
	}
}

// startDispatch starts the pickup orderers and the manifest makers.
func (l *dispatchLoad) startDispatch() {
	for range dispatchPickupWorkers {
		l.wg.Go(l.orderPickups)
	}
	for range dispatchManifestWorkers {
		l.wg.Go(l.makeManifests)
	}
}

func (l *dispatchLoad) orderPickups() {
	for !l.stopped() {
		l.mu.Lock()
		if len(l.slots) == 0 {
			l.mu.Unlock()
			return
		}
		s := l.slots[0]
		l.slots = l.slots[1:]
		l.mu.Unlock()
		a := l.dispatch.call(http.MethodPost, "/v1/pickups", pickupBody(s))
		l.mu.Lock()
		if refusedAtConnect(a) {
			l.refused++
			l.slots = append(l.slots, s)
		} else {
			l.pickups = append(l.pickups, posted(s.channel, a))
		}
		l.mu.Unlock()
		l.pace(a.sent, dispatchPickupEvery)
	}
}

// makeManifests hands a random channel's shipments over: every created
// one on no manifest. Two makers may take one channel at once, and one of
// them is refused the shipments the other holds.
func (l *dispatchLoad) makeManifests() {
	for !l.stopped() {
		ch := l.channels[rand.IntN(len(l.channels))]
		a := l.dispatch.call(http.MethodPost, "/v1/manifests", map[string]any{"shipping_channel_id": ch})
		l.mu.Lock()
		if refusedAtConnect(a) {
			l.refused++
		} else {
			l.manifests = append(l.manifests, posted(ch, a))
		}
		l.mu.Unlock()
		l.pace(a.sent, dispatchManifestEvery)
	}
}

func posted(channel string, a answer) dispatchPost {
	p := dispatchPost{channel: channel, answer: a}
	if a.ok() {
		p.id, _ = a.data()["id"].(string)
	}
	return p
}

// refusedAtConnect: the request reached no process.
func refusedAtConnect(a answer) bool { return errors.Is(a.err, syscall.ECONNREFUSED) }

func (l *dispatchLoad) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

func (l *dispatchLoad) pace(sent time.Time, every time.Duration) {
	select {
	case <-l.stop:
	case <-time.After(time.Until(sent.Add(every))):
	}
}

// halt stops every worker and waits for its last request; again, it
// does nothing (the test's cleanup halts a load a failure left running).
func (l *dispatchLoad) halt() {
	l.stopOnce.Do(func() { close(l.stop) })
	l.wg.Wait()
}

// snapshot is what the load sent so far.
func (l *dispatchLoad) snapshot() (pickups, manifests []dispatchPost, posts []answer, slotsLeft, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]dispatchPost(nil), l.pickups...), append([]dispatchPost(nil), l.manifests...),
		append([]answer(nil), l.posts...), len(l.slots), l.refused
}

// acknowledgedOf counts the posts answered 2xx.
func acknowledgedOf(posts []dispatchPost) int {
	n := 0
	for _, p := range posts {
		if p.ok() {
			n++
		}
	}
	return n
}

// dispatchAnswers are the posts' answers, for outcomes.
func dispatchAnswers(posts []dispatchPost) []answer {
	out := make([]answer, len(posts))
	for i, p := range posts {
		out[i] = p.answer
	}
	return out
}
