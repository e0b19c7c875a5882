package labels

import (
	"fmt"
	"image/color"
	"math"

	"github.com/boombuler/barcode/code128"
)

// Barcode geometry: bars are drawn on a 300 dpi pixel grid with a whole
// number of pixels per module, so every module has the same width when the
// page is printed or rasterized at 300 dpi, and 10 modules of quiet zone on
// each side as Code 128 asks.
const (
	barcodeDPI   = 300
	quietModules = 10
	pixelMM      = 25.4 / barcodeDPI // a barcodeDPI pixel's width
)

// onPixelGrid is x mm moved to the nearest pixel edge of the page
// rasterized at barcodeDPI: bars drawn from there land on whole pixels.
func onPixelGrid(x float64) float64 { return math.Round(x/pixelMM) * pixelMM }

// code128Symbol is a Code 128 symbol as runs of dark modules, each its
// first module and its width, and its width in modules without the quiet
// zones.
type code128Symbol struct {
	runs    [][2]int
	modules int
}

func encodeCode128(data string) (code128Symbol, error) {
	bc, err := code128.Encode(data)
	if err != nil {
		return code128Symbol{}, fmt.Errorf("barcode: %w", err)
	}
	s := code128Symbol{modules: bc.Bounds().Dx()}
	dark := func(m int) bool {
		c := color.GrayModel.Convert(bc.At(bc.Bounds().Min.X+m, bc.Bounds().Min.Y)).(color.Gray)
		return c.Y < 0x80
	}
	for m := 0; m < s.modules; m++ {
		if !dark(m) {
			continue
		}
		start := m
		for m+1 < s.modules && dark(m+1) {
			m++
		}
		s.runs = append(s.runs, [2]int{start, m + 1 - start})
	}
	return s, nil
}

// widthModules is the symbol's width with both quiet zones.
func (s code128Symbol) widthModules() int { return s.modules + 2*quietModules }

// bars are the symbol's bars at perModule pixels a module, each its left
// edge and width in barcodeDPI pixels from the left of its quiet zone.
func (s code128Symbol) bars(perModule int) [][2]int {
	out := make([][2]int, len(s.runs))
	for i, r := range s.runs {
		out[i] = [2]int{(quietModules + r[0]) * perModule, r[1] * perModule}
	}
	return out
}

// pixels is how many whole barcodeDPI pixels fit in widthMM.
func pixels(widthMM float64) int { return int(widthMM / 25.4 * barcodeDPI) }

// bars fills the bars (symbol.bars), the left of their quiet zone at left
// mm, from top y mm down height mm: a rectangle a bar.
func (p *pdfPage) bars(bars [][2]int, left, y, height float64) {
	for _, bar := range bars {
		p.content = appendNums(p.content, mm(left+float64(bar[0])*pixelMM), p.heightPt-mm(y+height),
			mm(float64(bar[1])*pixelMM), mm(height))
		p.content = append(p.content, " re\n"...)
	}
	p.content = append(p.content, "f\n"...)
}
