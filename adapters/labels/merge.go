package labels

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Merge joins label files of one format into one file, parts in order. PDF
// parts may come from any carrier and have any number of pages; ZPL and EPL
// parts are printer programs and are concatenated.
func Merge(format string, parts [][]byte) ([]byte, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge labels: no parts")
	}
	for i, p := range parts {
		if len(bytes.TrimSpace(p)) == 0 {
			return nil, fmt.Errorf("merge labels: part %d is empty", i)
		}
	}
	switch f := normalize(format); f {
	case "pdf":
		return mergePDF(parts)
	case "zpl", "epl":
		return concat(parts), nil
	}
	return nil, fmt.Errorf("merge labels: %w", unknownFormat(format))
}

// concat joins printer programs; each must end its last line, or the next
// part's first command would be read as part of it.
func concat(parts [][]byte) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		b.Write(p)
		if p[len(p)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// mergePDF does what api.MergeRaw does, but reads each part itself so a
// broken part is named by its index.
func mergePDF(parts [][]byte) ([]byte, error) {
	conf := pdfConfig()
	if len(parts) == 1 {
		// A file of one part is that part: it is checked as every part is,
		// and not written anew (re-encoding its streams was most of a
		// single-parcel booking's CPU time).
		if _, err := api.ReadAndValidate(bytes.NewReader(parts[0]), conf); err != nil {
			return nil, fmt.Errorf("merge labels: part 0 is not a valid PDF: %w", err)
		}
		return parts[0], nil
	}
	var dest *model.Context
	for i, p := range parts {
		ctx, err := api.ReadAndValidate(bytes.NewReader(p), conf)
		if err != nil {
			return nil, fmt.Errorf("merge labels: part %d is not a valid PDF: %w", i, err)
		}
		if i == 0 {
			dest = ctx
			dest.EnsureVersionForWriting()
			continue
		}
		if dest.XRefTable.Version() < model.V20 && ctx.XRefTable.Version() == model.V20 {
			return nil, fmt.Errorf("merge labels: part %d is PDF 2.0, part 0 is older", i)
		}
		if err := pdfcpu.MergeXRefTables(strconv.Itoa(i), ctx, dest, false, false); err != nil {
			return nil, fmt.Errorf("merge labels: part %d: %w", i, err)
		}
	}
	if err := api.OptimizeContext(dest); err != nil {
		return nil, fmt.Errorf("merge labels: %w", err)
	}
	var out bytes.Buffer
	if err := api.WriteContext(dest, &out); err != nil {
		return nil, fmt.Errorf("merge labels: %w", err)
	}
	return out.Bytes(), nil
}

// pdfConfig is pdfcpu's built-in default configuration for a merge, spelled
// out: model.NewDefaultConfiguration would create a config directory under
// the user's home (and exit the process when it cannot), and
// api.DisableConfigDir would change a process-wide setting.
func pdfConfig() *model.Configuration {
	return &model.Configuration{
		CreationDate:                   time.Now().Format("2006-01-02 15:04"),
		Version:                        model.VersionStr,
		Reader15:                       true,
		ValidationMode:                 model.ValidationRelaxed,
		Eol:                            types.EolLF,
		WriteObjectStream:              true,
		WriteXRefStream:                true,
		EncryptUsingAES:                true,
		EncryptKeyLength:               256,
		Permissions:                    model.PermissionsPrint,
		Cmd:                            model.MERGECREATE,
		TimestampFormat:                "2006-01-02 15:04",
		DateFormat:                     "2006-01-02",
		Optimize:                       true,
		OptimizeBeforeWriting:          true,
		OptimizeResourceDicts:          true,
		Offline:                        true,
		Timeout:                        5,
		PreferredCertRevocationChecker: model.CRL,
	}
}
