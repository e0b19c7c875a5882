package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"shipd/platform/projection"
)

// progressView shows how a rebuild advances.
type progressView interface {
	update(stage projection.Stage, done, total int64)
	// finish ends the view; err is how the rebuild ended.
	finish(err error)
}

// newProgressView draws on w: a bar with an ETA when w is a terminal, else
// (a log file, CI, a pipe) a plain line every 2 seconds and at each stage,
// which a log keeps readable where a redrawn bar would leave garbage.
func newProgressView(w *os.File, name string) progressView {
	if isTerminal(w) {
		return &barView{w: w, name: name}
	}
	return &lineView{w: w, name: name, every: 2 * time.Second, now: time.Now}
}

// isTerminal reports a character device; that includes /dev/null, where a
// bar costs nothing.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// barView is a progress bar with the rate and the time left.
type barView struct {
	w     io.Writer
	name  string
	bar   *progressbar.ProgressBar
	stage projection.Stage
}

func (v *barView) update(stage projection.Stage, done, total int64) {
	if total == 0 {
		return // nothing to replay: no bar
	}
	if v.bar == nil {
		v.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(v.w),
			progressbar.OptionSetDescription(v.describe(stage)),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("events"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(v.w) }),
		)
		v.stage = stage
	}
	if total != v.bar.GetMax64() {
		v.bar.ChangeMax64(total)
	}
	if stage != v.stage {
		v.stage = stage
		v.bar.Describe(v.describe(stage))
	}
	_ = v.bar.Set64(done) // a drawing error must not stop the rebuild
}

func (v *barView) describe(stage projection.Stage) string { return v.name + " " + string(stage) }

func (v *barView) finish(err error) {
	switch {
	case v.bar == nil:
	case err == nil:
		_ = v.bar.Finish()
	default:
		_ = v.bar.Exit() // the bar stays where the rebuild stopped
	}
}

// lineView writes a line of progress every so often.
type lineView struct {
	w       io.Writer
	name    string
	every   time.Duration
	now     func() time.Time
	started time.Time
	shown   time.Time
	stage   projection.Stage
}

func (v *lineView) update(stage projection.Stage, done, total int64) {
	now := v.now()
	if v.started.IsZero() {
		v.started = now
	}
	if stage == v.stage && now.Sub(v.shown) < v.every {
		return
	}
	v.stage, v.shown = stage, now
	fmt.Fprintln(v.w, progressLine(v.name, stage, done, total, now.Sub(v.started)))
}

func (v *lineView) finish(error) {}

// progressLine reads "shipments.shipment_list replaying: 1200/3000 events
// (40%), 600 events/s, ETA 3s".
func progressLine(name string, stage projection.Stage, done, total int64, elapsed time.Duration) string {
	line := fmt.Sprintf("%s %s: %d/%d events", name, stage, done, total)
	if total > 0 {
		line += fmt.Sprintf(" (%d%%)", done*100/total)
	}
	if done == 0 || elapsed <= 0 {
		return line
	}
	rate := float64(done) / elapsed.Seconds()
	eta := time.Duration(float64(total-done) / rate * float64(time.Second))
	return line + fmt.Sprintf(", %.0f events/s, ETA %s", rate, eta.Round(time.Second))
}
