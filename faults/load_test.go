//go:build faults

package faults

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeLoad is the write traffic a fault hits: workers creating shipments on
// one active sandbox channel, and one updater per spare channel bumping its
// description. Every request is kept with what it got, because after the
// fault the answers are the promises to check.
type writeLoad struct {
	targets   []client // instances, taken in turn
	channelID string
	every     time.Duration                              // between one worker's requests
	body      func(channelID, ref string) map[string]any // of a shipment POST

	stop     chan struct{}
	wg       sync.WaitGroup
	inFlight atomic.Int64

	mu        sync.Mutex
	prefix    string // of reference numbers: every shipment is recognisable, and findable by search
	shipments []shipmentPost
	updates   map[string]*channelUpdates
}

// shipmentPost is one POST /v1/shipments and its answer.
type shipmentPost struct {
	ref string
	id  string // when acknowledged
	answer
}

// channelUpdates are the description revisions sent to one spare channel,
// one at a time: "rev-N" with N rising.
type channelUpdates struct {
	lastSent, lastAcked int
	answers             []answer
}

// shipmentBody is a valid one-parcel sandbox shipment. Tracking is off: the
// tracking parcels' own checks would add load and events this suite does
// not look at. ZPL labels are the cheapest to make, which leaves the two
// cores to the write path under test.
func shipmentBody(channelID, ref string) map[string]any {
	return map[string]any{
		"shipping_channel_id": channelID, "reference_number": ref, "label_format": "zpl", "enable_tracking": false,
		"sender_contact":      map[string]any{"company_name": "Acme", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":   map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address": map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"parcels":             []map[string]any{{"length_dimension": 30, "width_dimension": 20, "height_dimension": 10, "weight_amount": 1.5}},
	}
}

// loadWorkers send shipments, loadRate is what they send together per
// second: a steady rate two shared cores keep up with, so a lag measured
// after a fault is the fault's, not a backlog the load piled up.
const (
	loadWorkers = 8
	loadRate    = 160
)

// startWriteLoad starts loadWorkers shipment creators and one updater per
// spare channel (each at a worker's pace), spread over targets.
func startWriteLoad(targets []client, channelID, prefix string, spares []string) *writeLoad {
	return startLoadOf(loadShape{body: shipmentBody, rate: loadRate}, targets, channelID, prefix, spares)
}

// loadShape is what a load's shipments are and how many are sent a second.
type loadShape struct {
	body func(channelID, ref string) map[string]any
	rate int
}

// startLoadOf is startWriteLoad sending shipments of another shape.
func startLoadOf(shape loadShape, targets []client, channelID, prefix string, spares []string) *writeLoad {
	l := &writeLoad{targets: targets, channelID: channelID, prefix: prefix, stop: make(chan struct{}), body: shape.body,
		every: time.Second * loadWorkers / time.Duration(shape.rate), updates: map[string]*channelUpdates{}}
	for w := range loadWorkers {
		l.wg.Go(func() { l.createShipments(w) })
	}
	for i, id := range spares {
		l.updates[id] = &channelUpdates{}
		l.wg.Go(func() { l.updateChannel(i, id) })
	}
	return l
}

func (l *writeLoad) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// pace waits out the rest of the worker's interval after a request that
// began at sent, so the load is steady whatever the answers' speed.
func (l *writeLoad) pace(sent time.Time) {
	select {
	case <-l.stop:
	case <-time.After(time.Until(sent.Add(l.every))):
	}
}

func (l *writeLoad) createShipments(worker int) {
	for n := 0; !l.stopped(); n++ {
		l.mu.Lock()
		ref := fmt.Sprintf("%s-%d-%d", l.prefix, worker, n)
		l.mu.Unlock()
		c := l.targets[(worker+n)%len(l.targets)]
		l.inFlight.Add(1)
		a := c.call(http.MethodPost, "/v1/shipments", l.body(l.channelID, ref))
		l.inFlight.Add(-1)
		p := shipmentPost{ref: ref, answer: a}
		if a.ok() {
			p.id, _ = a.data()["id"].(string)
		}
		l.mu.Lock()
		l.shipments = append(l.shipments, p)
		l.mu.Unlock()
		l.pace(a.sent)
	}
}

func (l *writeLoad) updateChannel(worker int, id string) {
	for rev := 1; !l.stopped(); rev++ {
		c := l.targets[(worker+rev)%len(l.targets)]
		l.mu.Lock()
		l.updates[id].lastSent = rev
		l.mu.Unlock()
		l.inFlight.Add(1)
		a := c.call(http.MethodPatch, "/v1/shipping-channels/"+id, map[string]any{"description": fmt.Sprintf("rev-%d", rev)})
		l.inFlight.Add(-1)
		l.mu.Lock()
		u := l.updates[id]
		u.answers = append(u.answers, a)
		if a.ok() {
			u.lastAcked = rev
		}
		l.mu.Unlock()
		l.pace(a.sent)
	}
}

// setPrefix changes the reference prefix of the shipments sent from now
// on, which marks a phase of the load (e.g. before and after a fault).
func (l *writeLoad) setPrefix(prefix string) {
	l.mu.Lock()
	l.prefix = prefix
	l.mu.Unlock()
}

// halt stops the workers and waits for their last requests.
func (l *writeLoad) halt() {
	close(l.stop)
	l.wg.Wait()
}

// posts returns the shipment POSTs so far.
func (l *writeLoad) posts() []shipmentPost {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]shipmentPost(nil), l.shipments...)
}

// acknowledged returns the shipments answered 2xx, by id.
func (l *writeLoad) acknowledged() map[string]shipmentPost {
	out := map[string]shipmentPost{}
	for _, p := range l.posts() {
		if p.ok() {
			out[p.id] = p
		}
	}
	return out
}

// sentRefs are the reference numbers of every POST, answered or not: a
// shipment in the service with any other reference did not come from us.
func (l *writeLoad) sentRefs() map[string]bool {
	out := map[string]bool{}
	for _, p := range l.posts() {
		out[p.ref] = true
	}
	return out
}

// channelRevisions returns, per spare channel, the last revision sent and
// the last one acknowledged.
func (l *writeLoad) channelRevisions() map[string]channelUpdates {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]channelUpdates{}
	for id, u := range l.updates {
		out[id] = channelUpdates{lastSent: u.lastSent, lastAcked: u.lastAcked, answers: append([]answer(nil), u.answers...)}
	}
	return out
}

// updateAnswers are the channel updates' answers.
func (l *writeLoad) updateAnswers() []answer {
	var out []answer
	for _, u := range l.channelRevisions() {
		out = append(out, u.answers...)
	}
	return out
}

// allAnswers are every request's answer, shipments and channel updates.
func (l *writeLoad) allAnswers() []answer {
	return append(answersOf(l.posts()), l.updateAnswers()...)
}

func answersOf(posts []shipmentPost) []answer {
	out := make([]answer, len(posts))
	for i, p := range posts {
		out[i] = p.answer
	}
	return out
}

// outcomes counts answers by status ("201", "503", "no answer").
func outcomes(answers []answer) string {
	counts := map[string]int{}
	for _, a := range answers {
		switch {
		case a.err != nil:
			counts["no answer"]++
		default:
			counts[fmt.Sprint(a.status)]++
		}
	}
	return joinCounts(counts, " × ")
}

// joinCounts writes counts sorted by name: "201 × 3, 503 × 1".
func joinCounts(counts map[string]int, sep string) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s%s%d", k, sep, counts[k])
	}
	return strings.Join(parts, ", ")
}

// loadChannels makes the channels a write load uses: "<name> main",
// validated, and two spares left in draft.
func loadChannels(t *testing.T, c client, name string) (main string, spares []string) {
	t.Helper()
	main = sandboxChannel(t, c, name+" main", true)
	return main, []string{sandboxChannel(t, c, name+" spare 1", false), sandboxChannel(t, c, name+" spare 2", false)}
}

// awaitAcknowledged waits until n writes of the load were acknowledged.
func (l *writeLoad) awaitAcknowledged(t testing.TB, n int, what string) {
	t.Helper()
	eventually(t, 60*time.Second, what, func() string {
		if got := len(l.acknowledged()); got < n {
			return fmt.Sprintf("only %d", got)
		}
		return ""
	})
}
