package ports_test

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/clock"
)

const (
	pickupsPath   = "/v1/pickups"
	manifestsPath = "/v1/manifests"
)

// monday is the manual clock's start: Monday 30 November 2026, 06:00 UTC,
// before the sandbox's order-by times of the day.
var monday = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// dispatchEnv is the service on a clock the test moves, with an account's
// key and an active sandbox channel of it.
func dispatchEnv(t *testing.T) (env *apptest.Env, clk *clock.Manual, key, channel string) {
	t.Helper()
	clk = clock.NewManual(monday)
	env = apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk))
	key = env.NewKey("acme")
	return env, clk, key, env.ActiveSandboxChannel(key, "Sandbox", nil)
}

func parcel(weight float64) map[string]any {
	return map[string]any{"parcel_type": "package", "length_dimension": 30, "width_dimension": 20, "height_dimension": 10,
		"dimension_unit": "CM", "weight_amount": weight, "weight_unit": "KG"}
}

func shipmentBody(channel, reference string, parcels ...map[string]any) map[string]any {
	return map[string]any{
		"shipping_channel_id": channel,
		"reference_number":    reference,
		"sender_contact":      map[string]any{"company_name": "Acme s.r.o.", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":   map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address": map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"parcels":             parcels,
	}
}

// createdShipment books a shipment at the sandbox and waits until the
// dispatch module knows it as created; it answers the shipment's id and
// its parcels' tracking numbers.
func createdShipment(t *testing.T, env *apptest.Env, key, channel, reference string, parcels ...map[string]any) (string, []string) {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: shipmentBody(channel, reference, parcels...)})
	if res.Status != http.StatusCreated {
		t.Fatalf("create shipment: %d %s", res.Status, res.Body)
	}
	id := res.Data(t)["id"].(string)
	var numbers []string
	apptest.Eventually(t, 15*time.Second, "shipment "+id+" created at the carrier", func() bool {
		sh := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)
		if sh["status"] != "created" {
			return false
		}
		numbers = nil
		for _, p := range sh["parcels"].([]any) {
			n, _ := p.(map[string]any)["tracking_number"].(string)
			numbers = append(numbers, n)
		}
		return true
	})
	apptest.Eventually(t, 15*time.Second, "the dispatch module knows "+id+" as created", func() bool {
		var n int
		if err := env.ModuleDB("dispatch").Get(&n, `SELECT count(*) FROM dispatch.shipments WHERE id = $1 AND status = 'created'`, id); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	return id, numbers
}

// barcodes rasterises every page of a PDF and decodes its barcodes, in
// page order.
func barcodes(t *testing.T, pdf []byte) []string {
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

// printedInOrder reports whether the PDF's text holds want in that order
// (pdftotext reads a page top to bottom): the parcels' order on the page.
func printedInOrder(t *testing.T, pdf []byte, want []string) bool {
	t.Helper()
	path := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	text := string(out)
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			return false
		}
		at += i + len(w)
	}
	return true
}
