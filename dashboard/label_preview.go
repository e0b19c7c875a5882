package dashboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Label previews (ADR 0028): the first page of a PDF label drawn as a PNG
// by poppler's pdftoppm, run as a child process when it is on PATH. ZPL and
// EPL labels have no preview: no renderer for them could be used (the ADR
// says why), and a preview that differs from what the printer prints would
// mislead.

// Bounds of one preview.
const (
	previewMaxInput  = 10 << 20 // bytes of label; a shipment's merged label is far smaller
	previewMaxOutput = 16 << 20 // bytes of PNG
	previewTimeout   = 10 * time.Second
	previewDPI       = "100"
	// previewMaxSide crops the drawing to this many pixels each way, so a
	// label whose page claims to be metres wide costs at most a 2000×2000
	// bitmap (about 12 MB) instead of gigabytes. A 10×15 cm label at 100
	// dpi is 394×591.
	previewMaxSide = "2000"
	previewSlots   = 2 // previews drawn at once; more wait, within the timeout
)

// Why a label has no preview image.
var (
	errPreviewFormat   = errors.New("no preview for this label format")
	errPreviewNoTool   = errors.New("no PDF renderer (pdftoppm, Debian package poppler-utils) is installed on the server")
	errPreviewTooLarge = errors.New("the label file is too large to preview")
	errPreviewNotPDF   = errors.New("the label file is not a PDF")
	errPreviewBusy     = errors.New("the server is drawing other previews; try again shortly")
)

// labelPreviewer draws previews of PDF labels with pdftoppm.
type labelPreviewer struct {
	tool    string // pdftoppm's path; empty when it is not installed
	timeout time.Duration
	slots   chan struct{}
}

// labelPreviews is the process's previewer. pdftoppm is looked up once, at
// the first preview: installing it later needs a restart.
var labelPreviews = sync.OnceValue(func() *labelPreviewer {
	tool, err := exec.LookPath("pdftoppm")
	if err != nil {
		tool = ""
	}
	return newLabelPreviewer(tool, previewTimeout)
})

func newLabelPreviewer(tool string, timeout time.Duration) *labelPreviewer {
	return &labelPreviewer{tool: tool, timeout: timeout, slots: make(chan struct{}, previewSlots)}
}

// unavailable says why a label of format has no preview, or is nil when one
// can be drawn.
func (p *labelPreviewer) unavailable(format string) error {
	if strings.ToLower(format) != "pdf" {
		return errPreviewFormat
	}
	if p.tool == "" {
		return errPreviewNoTool
	}
	return nil
}

// png draws the first page of pdf as a PNG image. It gives up when ctx ends
// (the browser went away) or after the previewer's timeout, waiting for a
// free slot included; the child process is killed then.
func (p *labelPreviewer) png(ctx context.Context, pdf []byte) ([]byte, error) {
	if err := p.unavailable("pdf"); err != nil {
		return nil, err
	}
	if len(pdf) > previewMaxInput {
		return nil, errPreviewTooLarge
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, errPreviewNotPDF
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, errPreviewBusy
		}
		return nil, ctx.Err()
	}
	// The label comes in on stdin and the image goes out on stdout: no
	// temporary files.
	cmd := exec.CommandContext(ctx, p.tool, "-png", "-r", previewDPI, "-f", "1", "-l", "1", "-singlefile",
		"-x", "0", "-y", "0", "-W", previewMaxSide, "-H", previewMaxSide, "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out := &cappedBuffer{max: previewMaxOutput}
	stderr := &cappedBuffer{max: 4 << 10, quiet: true}
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = time.Second // a killed child's pipes are closed after this
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("drawing the label took longer than %s", p.timeout)
			}
			return nil, ctx.Err()
		}
		if out.overflow {
			return nil, errors.New("the label's preview image is too large")
		}
		return nil, fmt.Errorf("pdftoppm: %v: %s", err, lastLine(stderr.String()))
	}
	if _, err := png.DecodeConfig(bytes.NewReader(out.Bytes())); err != nil {
		return nil, fmt.Errorf("pdftoppm answered something that is not a PNG image: %w", err)
	}
	return out.Bytes(), nil
}

// cappedBuffer keeps at most max bytes. Past them it fails the write, which
// ends the copy from the child (it then fails writing to a closed pipe), or,
// when quiet, drops the rest. It has no ReadFrom (an embedded bytes.Buffer
// would give it one, and io.Copy would then bypass Write and its cap).
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	quiet    bool
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.overflow = true
		if b.quiet {
			return len(p), nil
		}
		return 0, errors.New("output too large")
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) Bytes() []byte { return b.buf.Bytes() }

func (b *cappedBuffer) String() string { return b.buf.String() }

// lastLine is the last line of a child's error output that says something
// (poppler ends with the error that stopped it), for the log.
func lastLine(s string) string {
	last := "no error output"
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			last = line
		}
	}
	return last
}
