package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"
)

// maxMissesShown keeps a row readable; the log lists every target missed.
const maxMissesShown = 5

// writeLoadTable writes a row of lags per load run, each named in the
// first column.
func writeLoadTable(report *strings.Builder, first string, runs iter.Seq2[string, *loadResult]) {
	fmt.Fprintf(report, "| %s | achieved | list lag | booking lag | tracking-start lag | webhook lag | webhooks delivered | "+
		"bookings done | slowest group drained | RSS peak | CPU per write: shipd / PostgreSQL / bench / machine; machine busy | targets missed |\n"+
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n", first)
	for name, r := range runs {
		list, lu := r.probed(listStep)
		booking, bu := r.probed(bookingStep)
		tracked, tu := r.probed(trackedStep)
		achieved := fmt.Sprintf("%.0f/s", r.writes.achieved())
		if r.failed > 0 {
			achieved += fmt.Sprintf(" (**%d failed**: %s)", r.failed, oneLine(fmt.Sprint(r.writes.firstErr), 80))
		}
		var rss []string
		for i := range r.rss {
			rss = append(rss, fmt.Sprintf("%.0f", r.rssPeakMiB(i, 0, whole)))
		}
		missed := "none"
		if m := r.misses(); len(m) > maxMissesShown {
			missed = strings.Join(m[:maxMissesShown], "; ") + fmt.Sprintf("; and %d more", len(m)-maxMissesShown)
		} else if len(m) > 0 {
			missed = strings.Join(m, "; ")
		}
		fmt.Fprintf(report, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s MiB | %s | %s |\n", name, achieved,
			spread(list, lu), spread(booking, bu), spread(tracked, tu), spread(lagsOf(r.webhooks), 0),
			r.delivered(), r.bookingsDone(), r.slowestDrain(), strings.Join(rss, " / "), r.cpu.perWrite(r.created), missed)
	}
	fmt.Fprintln(report)
}

// delivered says how many shipment.created arrived and by when.
func (r *loadResult) delivered() string {
	if len(r.webhooks) == r.created {
		return fmt.Sprintf("all %d, the last %s after the writes", r.created, dur(max(0, r.lastDelivery)))
	}
	return fmt.Sprintf("**%d of %d** by %s after the writes", len(r.webhooks), r.created, dur(r.spec.drainLimit))
}

// bookingsDone says when no shipment awaited its booking any more.
func (r *loadResult) bookingsDone() string {
	if d, ok := r.settledAfter(func(s loadSample) bool { return s.bookingsDue == 0 }); ok {
		return fmt.Sprintf("%s after the writes", dur(d))
	}
	return fmt.Sprintf("**%d still due** %s after", r.samples[len(r.samples)-1].bookingsDue, dur(r.spec.drainLimit))
}

// slowestDrain names the group that caught up last, or those that did not.
func (r *loadResult) slowestDrain() string {
	drained, left := r.drains()
	if len(left) > 0 {
		return fmt.Sprintf("**not within %s**: %s left", dur(r.spec.drainLimit), describeWorst(left))
	}
	var slowest string
	for g, d := range drained {
		if slowest == "" || d > drained[slowest] {
			slowest = g
		}
	}
	return fmt.Sprintf("%s (%s)", dur(drained[slowest]), slowest)
}

// writeGroupTable writes each consumer group's worst lag during the writes
// and its drain time, a column per rate.
func writeGroupTable(report *strings.Builder, byRate map[int]*loadResult) {
	rates := slices.Sorted(maps.Keys(byRate))
	groups := map[string]bool{}
	fmt.Fprintf(report, "| consumer group: worst lag (seconds / messages) during the writes; drain time |")
	for _, rate := range rates {
		fmt.Fprintf(report, " %d/s |", rate)
		for g := range byRate[rate].worstBehind(0, whole) {
			groups[g] = true
		}
	}
	fmt.Fprintf(report, "\n|---|%s\n", strings.Repeat("---|", len(rates)))
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		fmt.Fprintf(report, "| %s |", g)
		for _, rate := range rates {
			fmt.Fprintf(report, " %s |", byRate[rate].groupCell(g))
		}
		fmt.Fprintln(report)
	}
	fmt.Fprintln(report)
}

// groupCell is one group's worst lag during the writes and its drain.
func (r *loadResult) groupCell(g string) string {
	w := r.worstBehind(0, r.writesEnd)[g]
	drained, left := r.drains()
	cell := fmt.Sprintf("%s / %.0f; ", dur(seconds(w.seconds)), w.messages)
	if d, ok := drained[g]; ok {
		return cell + dur(d)
	}
	return cell + fmt.Sprintf("**%.0f left**", left[g].messages)
}

// durationOf names a run's length for a table.
func durationOf(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return d.String()
}
