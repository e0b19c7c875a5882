package main

import (
	"math"
	"os"
	"testing"
	"time"
)

// A group's drain time is from the writes' end until its lag was 0 for
// good: a group that caught up and fell behind again drained at its last
// catch-up, one behind at the last sample did not drain.
func TestDrainsCountTheLastCatchUp(t *testing.T) {
	s := func(at time.Duration, list, fanOut float64) loadSample {
		return loadSample{at: at, groups: map[string]groupBehind{"list": {messages: list}, "fan_out": {messages: fanOut}}}
	}
	r := &loadResult{writesEnd: 10 * time.Second, samples: []loadSample{
		s(9*time.Second, 50, 50), // during the writes: not a drain sample
		s(10*time.Second, 0, 40),
		s(11*time.Second, 3, 30),
		s(12*time.Second, 0, 20),
		s(13*time.Second, 0, 10),
	}}
	drained, left := r.drains()
	if drained["list"] != 2*time.Second {
		t.Errorf("list drained after %s, want 2s", drained["list"])
	}
	if _, ok := drained["fan_out"]; ok || left["fan_out"].messages != 10 {
		t.Errorf("fan_out: drained %v, left %+v; want not drained, 10 left", drained, left)
	}
}

// A p99 that falls among the lags never seen is never.
func TestP99CountsTheNeverSeenAsLongest(t *testing.T) {
	seen := make([]time.Duration, 99)
	for i := range seen {
		seen[i] = time.Duration(i+1) * time.Millisecond
	}
	if got := p99Seconds(seen, 1); !math.IsInf(got, 1) {
		t.Errorf("99 seen and 1 never: p99 %v, want never", got)
	}
	if got := p99Seconds(append(seen, time.Second, time.Second), 0); got != 1 {
		t.Errorf("all seen: p99 %v, want 1 s", got)
	}
}

// The soak's flatness rule: within 1.5x of the first quarter or the floor
// above it, and a last quarter never seen is growth.
func TestSoakRowFlat(t *testing.T) {
	for _, c := range []struct {
		quarters [4]float64
		flat     bool
	}{
		{[4]float64{2, 2, 2, 3}, true},
		{[4]float64{2, 2, 2, 3.1}, false},
		{[4]float64{0, 0, 0, 0.2}, true}, // within the floor
		{[4]float64{1, 1, 1, math.Inf(1)}, false},
	} {
		if got := (soakRow{quarters: c.quarters, floor: 0.25}).flat(); got != c.flat {
			t.Errorf("%v: flat %v, want %v", c.quarters, got, c.flat)
		}
	}
}

// The scrape folds the lag gauges and the handlers' histogram counts by
// consumer group.
func TestScrapeReadsGroupsAndHandledCounts(t *testing.T) {
	text := `# TYPE shipd_event_handler_lag_messages gauge
shipd_event_handler_lag_messages{consumer_group="webhooks.fan_out.shipments",topic="shipments"} 12
# TYPE shipd_event_handler_lag_seconds gauge
shipd_event_handler_lag_seconds{consumer_group="webhooks.fan_out.shipments",topic="shipments"} 3.5
# TYPE shipd_events_handler_execution_time_seconds histogram
shipd_events_handler_execution_time_seconds_bucket{handler_name="shipments.shipment_list",success="true",le="+Inf"} 7
shipd_events_handler_execution_time_seconds_sum{handler_name="shipments.shipment_list",success="true"} 0.1
shipd_events_handler_execution_time_seconds_count{handler_name="shipments.shipment_list",success="true"} 7
shipd_events_handler_execution_time_seconds_bucket{handler_name="shipments.shipment_list",success="false",le="+Inf"} 2
shipd_events_handler_execution_time_seconds_sum{handler_name="shipments.shipment_list",success="false"} 0.1
shipd_events_handler_execution_time_seconds_count{handler_name="shipments.shipment_list",success="false"} 2
`
	m, err := parseScrape([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.groupsBehind()["webhooks.fan_out.shipments"]; got != (groupBehind{seconds: 3.5, messages: 12}) {
		t.Errorf("behind %+v, want 3.5 s and 12 messages", got)
	}
	if got := m.handled()["shipments.shipment_list"]; got != 9 {
		t.Errorf("handled %v, want 9 (successes and failures)", got)
	}
}

// A group read in partitions is reported as the group: its partitions'
// messages summed, the oldest age.
func TestPartitionsFoldIntoTheirGroup(t *testing.T) {
	m, err := parseScrape([]byte(`# TYPE shipd_event_handler_lag_messages gauge
shipd_event_handler_lag_messages{consumer_group="g#0",topic="s"} 3
shipd_event_handler_lag_messages{consumer_group="g#1",topic="s"} 4
# TYPE shipd_event_handler_lag_seconds gauge
shipd_event_handler_lag_seconds{consumer_group="g#0",topic="s"} 0.5
shipd_event_handler_lag_seconds{consumer_group="g#1",topic="s"} 1.5
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.groupsBehind(); len(got) != 1 || got["g"] != (groupBehind{seconds: 1.5, messages: 7}) {
		t.Errorf("groups behind %+v, want g: 1.5 s, 7 messages", got)
	}
}

// The bench reads its own process's parent and CPU times, and the machine's.
func TestCPUReadingsReadTheProcessAndTheMachine(t *testing.T) {
	s, ok := procStat(os.Getpid())
	if !ok || s.ppid != os.Getppid() {
		t.Fatalf("procStat of the test process: %+v, %v; want its parent %d", s, ok, os.Getppid())
	}
	busy, total := machineCPU()
	if busy <= 0 || total < busy {
		t.Errorf("machine CPU busy %s of %s", busy, total)
	}
}
