package main

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"shipd/adapters/labels"
)

// renderDuration is how long each renderer measurement runs (-render-duration).
var renderDuration = 3 * time.Second

// renderParcels are the shipment sizes the renderer is measured at.
var renderParcels = []int{1, 10}

// benchParcels are the labels of a shipment of n parcels as the sandbox
// carrier prints them for the shipments the bench creates (shipmentJSON).
func benchParcels(n int) []labels.ParcelLabel {
	out := make([]labels.ParcelLabel, n)
	for i := range out {
		out[i] = labels.ParcelLabel{
			Carrier: "Sandbox carrier", Product: "STANDARD", TrackingNumber: fmt.Sprintf("SB%09dCZ", 100000000+i),
			Sender: labels.Party{Company: "Acme", Street: "A", HouseNumber: "1", PostalCode: "11000", City: "Praha",
				CountryCode: "CZ", Phone: "+420111"},
			Recipient: labels.Party{Name: "Jana Nova", Street: "B", HouseNumber: "2", PostalCode: "60200", City: "Brno",
				CountryCode: "CZ", Phone: "+420222"},
			ParcelIndex: i + 1, ParcelCount: n, Weight: "1.50 KG", Reference: fmt.Sprintf("BENCH-%d", i),
			ShippingDate: time.Now().Format(time.DateOnly),
		}
	}
	return out
}

// renderShipment draws the labels of parcels in format and merges them into
// the one file a booking stores: the renderer's share of a booking.
func renderShipment(format string, parcels []labels.ParcelLabel) error {
	parts := make([][]byte, len(parcels))
	for i, l := range parcels {
		data, err := labels.Render(format, l)
		if err != nil {
			return err
		}
		parts[i] = data
	}
	_, err := labels.Merge(format, parts)
	return err
}

// renderRate renders shipments of n parcels in format from goroutines
// goroutines for d and returns shipments (label files) per second and the
// process's CPU time per shipment (the machine is shared: other work slows
// the rate, much less the CPU time).
func renderRate(format string, n, goroutines int, d time.Duration) (float64, time.Duration, error) {
	parcels := benchParcels(n)
	cpuBefore := processCPU()
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range goroutines {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if err := renderShipment(format, parcels); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	took, cpu := time.Since(start), processCPU()-cpuBefore
	if done.Load() == 0 {
		return 0, 0, firstErr
	}
	return float64(done.Load()) / took.Seconds(), cpu / time.Duration(done.Load()), firstErr
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// benchRender measures the label renderer alone, no database nor HTTP: what
// a booking's label costs at most, the limit the booking worker is set
// against.
func benchRender(report *strings.Builder) error {
	procs := runtime.GOMAXPROCS(0)
	fmt.Fprintf(report, "## Label renderer alone\n\n")
	fmt.Fprintf(report, "`adapters/labels` in the bench's process, no database, no HTTP: each operation draws a shipment's parcel labels\n")
	fmt.Fprintf(report, "(`labels.Render`, as the sandbox carrier does) and merges them into the one file a booking stores\n")
	fmt.Fprintf(report, "(`labels.Merge`; a PDF of one part is checked, not rewritten), for %s per row, from one goroutine and from\n", renderDuration)
	fmt.Fprintf(report, "GOMAXPROCS (%d). The same work as `go test -bench Render ./adapters/labels/`. CPU is the process's CPU time\n", procs)
	fmt.Fprintf(report, "per shipment (garbage collection included), which other work on the machine changes less than the rates.\n\n")
	fmt.Fprintf(report, "| format | parcels | 1 goroutine: shipments/s (parcel labels/s), CPU | %d goroutines: shipments/s (parcel labels/s), CPU |\n|---|---|---|---|\n", procs)
	for _, format := range labels.Formats {
		for _, n := range renderParcels {
			var cells []string
			for _, g := range []int{1, procs} {
				rate, cpu, err := renderRate(format, n, g, renderDuration)
				if err != nil {
					return fmt.Errorf("%s, %d parcels: %w", format, n, err)
				}
				logf("render: %s, %d parcels, %d goroutines: %.0f shipments/s, %s CPU each", format, n, g, rate, ms(cpu))
				cells = append(cells, fmt.Sprintf("%.0f (%.0f), %s", rate, rate*float64(n), ms(cpu)))
			}
			fmt.Fprintf(report, "| %s | %d | %s |\n", format, n, strings.Join(cells, " | "))
		}
	}
	fmt.Fprintln(report)
	return nil
}
