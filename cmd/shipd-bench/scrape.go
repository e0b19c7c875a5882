package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape is one reading of a shipd process's /metrics, by family name.
type scrape map[string]*dto.MetricFamily

// scrapeMetrics reads /metrics of s.
func scrapeMetrics(s *service) (scrape, error) {
	status, body, err := s.do(http.MethodGet, "/metrics", "")
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %d %v", status, err)
	}
	return parseScrape(body)
}

// parseScrape reads the Prometheus text format.
func parseScrape(text []byte) (scrape, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(text))
}

// by folds a family's series by one label's value: a gauge's or counter's
// value, a histogram's count; fold decides how series of one value combine.
func (m scrape) by(family, label string, fold func(a, b float64) float64) map[string]float64 {
	out := map[string]float64{}
	f := m[family]
	if f == nil {
		return out
	}
	for _, series := range f.GetMetric() {
		var key string
		for _, l := range series.GetLabel() {
			if l.GetName() == label {
				key = groupOf(l.GetValue())
			}
		}
		var v float64
		switch {
		case series.Gauge != nil:
			v = series.GetGauge().GetValue()
		case series.Counter != nil:
			v = series.GetCounter().GetValue()
		case series.Histogram != nil:
			v = float64(series.GetHistogram().GetSampleCount())
		}
		if old, ok := out[key]; ok {
			v = fold(old, v)
		}
		out[key] = v
	}
	return out
}

// groupOf is the consumer group a partition's reader ("g#p", ADR 0050)
// belongs to: the figures are the group's, its partitions folded (messages
// summed, the oldest age).
func groupOf(name string) string {
	group, _, _ := strings.Cut(name, "#")
	return group
}

func added(a, b float64) float64   { return a + b }
func greater(a, b float64) float64 { return max(a, b) }

// groupBehind is one consumer group's lag at a reading: the age of the
// oldest message it has not handled and how many there are.
type groupBehind struct {
	seconds, messages float64
}

// groupsBehind reads every consumer group's lag from a scrape (a group
// reads one stream in partitions, a series each: their messages are
// summed, their age is the oldest's).
func (m scrape) groupsBehind() map[string]groupBehind {
	seconds := m.by("shipd_event_handler_lag_seconds", "consumer_group", greater)
	out := map[string]groupBehind{}
	for g, n := range m.by("shipd_event_handler_lag_messages", "consumer_group", added) {
		out[g] = groupBehind{seconds: seconds[g], messages: n}
	}
	return out
}

// handledMetric is the counter that tells how many messages an instance's
// consumer group handled: Watermill's router times every message a
// group's handler runs on, labelled by handler (the group's name), whether
// it succeeded or not.
const handledMetric = "shipd_events_handler_execution_time_seconds"

// handled is how many messages each consumer group of the instance has
// handled since it started.
func (m scrape) handled() map[string]float64 {
	return m.by(handledMetric, "handler_name", added)
}
