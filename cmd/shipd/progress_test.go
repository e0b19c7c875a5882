package main

import (
	"strings"
	"testing"
	"time"

	"shipd/platform/projection"
)

func TestProgressLinesEveryTwoSecondsAndAtEachStage(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := &lineView{w: &out, name: "shipments.shipment_list", every: 2 * time.Second, now: func() time.Time { return now }}
	step := func(d time.Duration, stage projection.Stage, done, total int64) {
		now = now.Add(d)
		v.update(stage, done, total)
	}
	step(0, projection.Replaying, 0, 3000)
	step(time.Second, projection.Replaying, 500, 3000) // too soon
	step(time.Second, projection.Replaying, 1200, 3000)
	step(500*time.Millisecond, projection.Replaying, 1500, 3000) // too soon
	step(500*time.Millisecond, projection.Indexing, 3000, 3000)  // a new stage
	want := `shipments.shipment_list replaying: 0/3000 events (0%)
shipments.shipment_list replaying: 1200/3000 events (40%), 600 events/s, ETA 3s
shipments.shipment_list indexing: 3000/3000 events (100%), 1000 events/s, ETA 0s
`
	if out.String() != want {
		t.Errorf("progress lines:\n%s\nwant\n%s", out.String(), want)
	}
}
