// Package labelcheck reads labels back for tests: the barcodes of every page
// of a PDF (rasterized by poppler's pdftoppm, decoded by zbar's zbarimg,
// Debian packages poppler-utils and zbar-tools), and the data of the
// barcode commands of ZPL and EPL programs.
package labelcheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// LabelBarcodes returns the barcodes of ls as shipd serves them (merged
// into one file), in reading order.
func LabelBarcodes(t testing.TB, format string, ls []carrier.Label) []string {
	t.Helper()
	return Barcodes(t, format, Merge(t, format, ls))
}

// Merge merges ls into one file of format, failing the test if a label is
// in another format: an adapter must answer in the format asked for.
func Merge(t testing.TB, format string, ls []carrier.Label) []byte {
	t.Helper()
	parts := make([][]byte, len(ls))
	for i, l := range ls {
		if l.Format != format {
			t.Fatalf("label %d has format %q, want %q", i, l.Format, format)
		}
		parts[i] = l.Data
	}
	merged, err := labels.Merge(format, parts)
	if err != nil {
		t.Fatalf("labels.Merge(%s): %v", format, err)
	}
	return merged
}

// Barcodes returns the barcodes of a pdf, zpl or epl file in reading order,
// those of PDF pages one page after another.
func Barcodes(t testing.TB, format string, data []byte) []string {
	t.Helper()
	switch format {
	case "pdf":
		var out []string
		for _, page := range PDFBarcodes(t, data) {
			out = append(out, page...)
		}
		return out
	case "zpl":
		return ZPLBarcodes(data)
	case "epl":
		return EPLBarcodes(data)
	}
	t.Fatalf("labelcheck: no reader for format %q", format)
	return nil
}

// PDFBarcodes returns the barcodes decoded on each page of pdf, in page order.
func PDFBarcodes(t testing.TB, pdf []byte) [][]string {
	t.Helper()
	for _, tool := range []string{"pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian packages poppler-utils and zbar-tools): %v", tool, err)
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, "pdftoppm", "-r", "300", "-png", in, filepath.Join(dir, "page"))
	pages, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	pageNo := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "page-"), ".png"))
		return n
	}
	sort.Slice(pages, func(i, j int) bool { return pageNo(pages[i]) < pageNo(pages[j]) })
	out := make([][]string, len(pages))
	for i, p := range pages {
		out[i] = strings.Fields(run(t, "zbarimg", "--raw", "-q", p))
	}
	return out
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// zbarimg exits 4 when a page has no barcode: an answer, not a failure.
	if ee, ok := err.(*exec.ExitError); ok && name == "zbarimg" && ee.ExitCode() == 4 {
		return ""
	}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return string(out)
}

var (
	zplBarcode = regexp.MustCompile(`\^B[A-Z0-9][^\^]*(?:\^FH[^\^]*)?\^FD([^\^]*)\^FS`)
	eplBarcode = regexp.MustCompile(`(?m)^B\d+,\d+,\d,[^,]+,\d+,\d+,\d+,[BN],"((?:[^"\\]|\\.)*)"`)
)

// ZPLBarcodes returns the data of every barcode field (^B… then ^FD…^FS)
// of a ZPL program, in order; ^FD data of text fields is not included.
func ZPLBarcodes(zpl []byte) []string {
	var out []string
	for _, m := range zplBarcode.FindAllSubmatch(zpl, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// EPLBarcodes returns the data of every B (bar code) command of an EPL2
// program, in order.
func EPLBarcodes(epl []byte) []string {
	var out []string
	for _, m := range eplBarcode.FindAllSubmatch(epl, -1) {
		out = append(out, string(m[1]))
	}
	return out
}
