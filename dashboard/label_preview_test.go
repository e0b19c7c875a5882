package dashboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTool writes a shell script standing in for pdftoppm.
func fakeTool(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pdftoppm")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// onePagePDF is a blank one-page PDF of w × h points (poppler rebuilds the
// missing cross-reference table).
func onePagePDF(w, h int) []byte {
	return fmt.Appendf(nil, "%%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"+
		"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 %d %d]>>endobj\ntrailer<</Root 1 0 R>>\n%%%%EOF\n", w, h)
}

func TestLabelPreviewRefusesWhatItCannotDraw(t *testing.T) {
	t.Parallel()
	none := newLabelPreviewer("", time.Second)
	for _, f := range []string{"zpl", "epl", "", "png"} {
		if err := none.unavailable(f); !errors.Is(err, errPreviewFormat) {
			t.Errorf("format %q: %v, want errPreviewFormat", f, err)
		}
	}
	if err := none.unavailable("PDF"); !errors.Is(err, errPreviewNoTool) {
		t.Errorf("pdf without pdftoppm: %v", err)
	}
	if _, err := none.png(context.Background(), onePagePDF(100, 100)); !errors.Is(err, errPreviewNoTool) {
		t.Errorf("drawing without pdftoppm: %v", err)
	}
	if got := noPreviewReason("pdf", errPreviewNoTool); !strings.Contains(got, "poppler-utils") {
		t.Errorf("message without a renderer: %q", got)
	}
	if got := noPreviewReason("zpl", errPreviewFormat); got != "No preview for ZPL labels: download the label to print it." {
		t.Errorf("message for zpl: %q", got)
	}

	// Nothing is run for input that is not a PDF or too large.
	never := newLabelPreviewer(fakeTool(t, "echo ran >&2; exit 99"), time.Second)
	if _, err := never.png(context.Background(), []byte("^XA^FDhello^FS^XZ")); !errors.Is(err, errPreviewNotPDF) {
		t.Errorf("a ZPL file: %v", err)
	}
	big := append([]byte("%PDF-1.4\n"), make([]byte, previewMaxInput)...)
	if _, err := never.png(context.Background(), big); !errors.Is(err, errPreviewTooLarge) {
		t.Errorf("an 11 MB file: %v", err)
	}
}

func TestLabelPreviewBoundsTheChildProcess(t *testing.T) {
	t.Parallel()
	pdf := onePagePDF(100, 100)

	// A renderer that hangs is killed at the timeout, its pipes closed.
	hang := newLabelPreviewer(fakeTool(t, "exec sleep 60"), 300*time.Millisecond)
	if _, err := hang.png(context.Background(), pdf); err == nil || !strings.Contains(err.Error(), "took longer than") {
		t.Errorf("hanging renderer: %v", err)
	}
	// A request that ends (the browser went away) stops it too.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := newLabelPreviewer(fakeTool(t, "exec sleep 60"), time.Minute).png(ctx, pdf); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
	// Output that is not a PNG, or too much of it, is refused.
	if _, err := newLabelPreviewer(fakeTool(t, "cat >/dev/null; echo not a picture"), 5*time.Second).png(context.Background(), pdf); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Errorf("garbage output: %v", err)
	}
	if _, err := newLabelPreviewer(fakeTool(t, "cat >/dev/null; exec head -c 40000000 /dev/zero"), 10*time.Second).png(context.Background(), pdf); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("endless output: %v", err)
	}
	// A renderer that fails says why.
	if _, err := newLabelPreviewer(fakeTool(t, "cat >/dev/null; echo 'Syntax Warning: x' >&2; echo 'Syntax Error: broken' >&2; exit 1"), 5*time.Second).png(context.Background(), pdf); err == nil || !strings.Contains(err.Error(), "Syntax Error: broken") {
		t.Errorf("failing renderer: %v", err)
	}
	// With every slot taken, a preview waits, then gives up as busy.
	busy := newLabelPreviewer(fakeTool(t, "exit 99"), 200*time.Millisecond)
	for range previewSlots {
		busy.slots <- struct{}{}
	}
	if _, err := busy.png(context.Background(), pdf); !errors.Is(err, errPreviewBusy) {
		t.Errorf("all slots taken: %v", err)
	}
}

func TestLabelPreviewWithPdftoppm(t *testing.T) {
	t.Parallel()
	tool, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Fatalf("pdftoppm is not installed (Debian package poppler-utils): %v", err)
	}
	p := newLabelPreviewer(tool, time.Minute)
	out, err := p.png(context.Background(), onePagePDF(288, 432)) // 4 × 6 in
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil || img.Bounds().Dx() != 400 || img.Bounds().Dy() != 600 {
		t.Fatalf("4×6 in page at 100 dpi: %v (%v), want 400×600", img.Bounds(), err)
	}
	// A page that claims to be 5 m wide is cropped, not drawn at 20,000 px.
	out, err = p.png(context.Background(), onePagePDF(14400, 14400))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(out)); err != nil || cfg.Width != 2000 || cfg.Height != 2000 {
		t.Errorf("huge page: %d×%d (%v), want 2000×2000", cfg.Width, cfg.Height, err)
	}
	if _, err := p.png(context.Background(), []byte("%PDF-1.4\nnothing else")); err == nil || !strings.HasPrefix(err.Error(), "pdftoppm:") {
		t.Errorf("a broken PDF: %v", err)
	}
}
