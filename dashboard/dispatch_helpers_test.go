package dashboard_test

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/clock"
)

// The shipping day's pages run on a clock the test holds: Monday 30
// November 2026, 06:00 UTC, before the sandbox's order-by times, so its
// windows of the days ahead are known (weekdays 09:00-12:00 and
// 12:00-17:00, Saturday 09:00-12:00, Sunday none). Helpers are prefixed
// disp so they cannot clash with other pages' tests in this package.
var dispMonday = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// dispEnv is the service on that clock with acme's key and an active
// sandbox channel of it.
func dispEnv(t *testing.T) (env *apptest.Env, key, channel string) {
	t.Helper()
	env = apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clock.NewManual(dispMonday)))
	key = env.NewKey("acme")
	return env, key, env.ActiveSandboxChannel(key, "Main warehouse", nil)
}

// dispShipment books a one-parcel shipment at the sandbox and waits until
// the pages can offer it: created at the carrier, in the shipments list
// (a read model) and known to the dispatch module (its own copy, built from
// the shipments stream).
func dispShipment(t *testing.T, env *apptest.Env, key, channel, reference string) string {
	t.Helper()
	id := shCreate(t, env, key, shBody(channel, reference, 1))
	if sh := shAwaitCarrier(t, env, key, id); sh["status"] != "created" {
		t.Fatalf("shipment %s: %v", reference, sh)
	}
	apptest.Eventually(t, 90*time.Second, reference+" listed as created and known to dispatch", func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments?status=created&search=" + reference, Key: key})
		if !strings.Contains(string(res.Body), id) {
			return false
		}
		var n int
		if err := env.ModuleDB("dispatch").Get(&n, `SELECT count(*) FROM dispatch.shipments WHERE id = $1 AND status = 'created'`, id); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	return id
}

// dispCount counts the rows of a dispatch table.
func dispCount(t *testing.T, env *apptest.Env, table string) int {
	t.Helper()
	var n int
	if err := env.ModuleDB("dispatch").Get(&n, `SELECT count(*) FROM dispatch.`+table); err != nil {
		t.Fatal(err)
	}
	return n
}

var dispTicked = regexp.MustCompile(`<input type="checkbox" name="shipment_ids" value="([^"]+)"[^>]*?( checked)?>`)

// dispOffered are the shipments a form offers, and which of them are ticked.
func dispOffered(page string) (offered, ticked []string) {
	for _, m := range dispTicked.FindAllStringSubmatch(page, -1) {
		offered = append(offered, m[1])
		if m[2] != "" {
			ticked = append(ticked, m[1])
		}
	}
	return offered, ticked
}

// dispRow is the list row of the record with id, by its data attribute.
func dispRow(page, attribute, id string) string {
	return regexp.MustCompile(`(?s)<tr ` + attribute + `="` + regexp.QuoteMeta(id) + `">.*?</tr>`).FindString(page)
}

// dispBarcodes rasterises every page of a PDF and decodes its barcodes.
func dispBarcodes(t *testing.T, pdf []byte) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.pdf"), pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "300", "-gray", "-png", filepath.Join(dir, "doc.pdf"), filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	var all []string
	for _, p := range pages {
		out, err := exec.Command("zbarimg", "--raw", "-q", p).Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 4 { // a page without a barcode
			continue
		}
		if err != nil {
			t.Fatalf("zbarimg %s: %v", p, err)
		}
		all = append(all, strings.Fields(string(out))...)
	}
	return all
}
