package labels_test

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"

	"shipd/adapters/labels"
)

// shipmentParcels are n parcels of one shipment, each with its own tracking
// number, as a carrier that prints the labels itself hands them to Render.
func shipmentParcels(n int) []labels.ParcelLabel {
	out := make([]labels.ParcelLabel, n)
	for i := range out {
		l := parcel(0)
		l.TrackingNumber = fmt.Sprintf("SB%09dCZ", 473124829+i)
		l.ParcelIndex, l.ParcelCount = i+1, n
		out[i] = l
	}
	return out
}

// BenchmarkRender draws a shipment's labels and merges them into its one
// file, the work a booking asks of this package.
func BenchmarkRender(b *testing.B) {
	for _, format := range labels.Formats {
		for _, n := range []int{1, 10} {
			parcels := shipmentParcels(n)
			b.Run(fmt.Sprintf("%s/%d", format, n), func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					parts := make([][]byte, n)
					for i, l := range parcels {
						data, err := labels.Render(format, l)
						if err != nil {
							b.Fatal(err)
						}
						parts[i] = data
					}
					if _, err := labels.Merge(format, parts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// processCPU is the CPU time the process has used (garbage collection
// included): on a machine other work shares, it says more of the work done
// than ns/op, which counts the waits for a core too.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkRenderHandover draws the handover document of a manifest of
// 1,000 parcels, the largest make bench asks for; pages/op says how long
// the document is.
func BenchmarkRenderHandover(b *testing.B) {
	d := handoverDoc(1000)
	b.ReportAllocs()
	cpu := processCPU()
	var pages int
	for b.Loop() {
		pdf, err := labels.RenderHandover(d)
		if err != nil {
			b.Fatal(err)
		}
		pages = bytes.Count(pdf, []byte("/Type /Page "))
		b.ReportMetric(float64(len(pdf)), "bytes/op")
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(pages), "pages/op")
}
