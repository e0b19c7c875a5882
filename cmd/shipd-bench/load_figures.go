package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The targets of issue 32 a rate must meet to be sustainable.
const (
	workLagTarget = 2 * time.Second        // booking, webhook, tracking-start lag p99; a group's lag at any sample
	listLagTarget = 500 * time.Millisecond // list lag p99
	drainTarget   = 5 * time.Second        // every group caught up after the last write
	rssTargetMiB  = 150.0                  // RSS under load (reported, not part of the sustainable rate)
)

// probesPerSecond is how many writes a second are followed through list,
// booking and tracking (shipmentProbe), as the process part samples.
const probesPerSecond = 5

// probed is the sorted lags of the probes that saw one step (list,
// booking, tracking start) and how many never did.
func (r *loadResult) probed(step func(*shipmentProbe) time.Duration) (lags []time.Duration, unseen int) {
	for _, p := range r.probes {
		if d := step(p); d > 0 {
			lags = append(lags, d)
		} else {
			unseen++
		}
	}
	slices.Sort(lags)
	return lags, unseen
}

func listStep(p *shipmentProbe) time.Duration    { return p.list }
func bookingStep(p *shipmentProbe) time.Duration { return p.booking }
func trackedStep(p *shipmentProbe) time.Duration { return p.tracked }

// worstBehind is each group's most seconds and most messages behind over
// the samples taken in [from, to) (the two maxima may come from different
// samples).
func (r *loadResult) worstBehind(from, to time.Duration) map[string]groupBehind {
	worst := map[string]groupBehind{}
	for _, s := range r.samples {
		if s.at < from || s.at >= to {
			continue
		}
		for g, b := range s.groups {
			w := worst[g]
			worst[g] = groupBehind{seconds: max(w.seconds, b.seconds), messages: max(w.messages, b.messages)}
		}
	}
	return worst
}

// settledAfter is how long after the writes' end a condition began to hold
// for good (until the wait ended); ok is false when it did not hold at the
// end. A condition that held at every sample after the writes settled at 0.
func (r *loadResult) settledAfter(holds func(loadSample) bool) (d time.Duration, ok bool) {
	var since time.Duration
	for _, s := range r.samples {
		if s.at < r.writesEnd {
			continue
		}
		if !holds(s) {
			since, ok = -1, false
			continue
		}
		if !ok {
			since, ok = max(0, s.at-r.writesEnd), true
		}
	}
	return since, ok
}

// drains is each group's drain time: from the writes' end until its lag
// was 0 for good; a group still behind when the wait ended is in left.
func (r *loadResult) drains() (drained map[string]time.Duration, left map[string]groupBehind) {
	drained, left = map[string]time.Duration{}, map[string]groupBehind{}
	last := r.samples[len(r.samples)-1]
	for g := range last.groups {
		if d, ok := r.settledAfter(func(s loadSample) bool { return s.groups[g].messages == 0 }); ok {
			drained[g] = d
		} else {
			left[g] = last.groups[g]
		}
	}
	return drained, left
}

// rssPeakMiB is instance i's highest RSS over the samples taken in [from, to).
func (r *loadResult) rssPeakMiB(i int, from, to time.Duration) float64 {
	var peak int64
	for _, s := range r.rss[i] {
		if s.at >= from && s.at < to {
			peak = max(peak, s.kib)
		}
	}
	return float64(peak) / 1024
}

// whole is beyond every sample: [0, whole) is the run from start to end.
const whole = time.Duration(1<<63 - 1)

// misses lists the targets the run missed; none makes its rate sustainable.
func (r *loadResult) misses() []string {
	var out []string
	if r.failed > 0 {
		out = append(out, fmt.Sprintf("%d writes failed", r.failed))
	}
	for _, step := range []struct {
		name   string
		at     func(*shipmentProbe) time.Duration
		target time.Duration
	}{{"list", listStep, listLagTarget}, {"booking", bookingStep, workLagTarget}, {"tracking-start", trackedStep, workLagTarget}} {
		lags, unseen := r.probed(step.at)
		if unseen > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d samples never", step.name, unseen, len(r.probes)))
		} else if p := pct(lags, 99); p >= step.target {
			out = append(out, fmt.Sprintf("%s p99 %s", step.name, dur(p)))
		}
	}
	if missing := r.created - len(r.webhooks); missing > 0 {
		out = append(out, fmt.Sprintf("webhooks: %d of %d undelivered", missing, r.created))
	} else if p := pct(lagsOf(r.webhooks), 99); p >= workLagTarget {
		out = append(out, fmt.Sprintf("webhook p99 %s", dur(p)))
	}
	worst := r.worstBehind(0, r.writesEnd)
	for _, g := range slices.Sorted(maps.Keys(worst)) {
		if s := worst[g].seconds; s > workLagTarget.Seconds() {
			out = append(out, fmt.Sprintf("%s %s behind", g, dur(seconds(s))))
		}
	}
	drained, left := r.drains()
	for _, g := range slices.Sorted(maps.Keys(drained)) {
		if drained[g] > drainTarget {
			out = append(out, fmt.Sprintf("%s drained in %s", g, dur(drained[g])))
		}
	}
	for _, g := range slices.Sorted(maps.Keys(left)) {
		out = append(out, fmt.Sprintf("%s not drained", g))
	}
	return out
}

// spread is p50 / p99 / max of sorted lags, with the unseen named.
func spread(lags []time.Duration, unseen int) string {
	if len(lags) == 0 && unseen == 0 {
		return "no samples"
	}
	s := fmt.Sprintf("%s / %s / %s", dur(pct(lags, 50)), dur(pct(lags, 99)), dur(pct(lags, 100)))
	if unseen > 0 {
		s += fmt.Sprintf(" (**%d never**)", unseen)
	}
	return s
}

// dur writes a lag in ms below a second, else in seconds.
func dur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// describeWorst is each group's worst lag, most behind first: "group 12.3 s / 4512".
func describeWorst(worst map[string]groupBehind) string {
	groups := slices.Sorted(maps.Keys(worst))
	slices.SortStableFunc(groups, func(a, b string) int { return cmp.Compare(worst[b].messages, worst[a].messages) })
	var parts []string
	for _, g := range groups {
		if worst[g].messages > 0 {
			parts = append(parts, fmt.Sprintf("%s %s / %.0f", g, dur(seconds(worst[g].seconds)), worst[g].messages))
		}
	}
	if len(parts) == 0 {
		return "none behind"
	}
	return strings.Join(parts, ", ")
}
