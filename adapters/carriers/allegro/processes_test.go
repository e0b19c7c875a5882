package allegro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/apptest"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/secrets"
)

// The rotated refresh token kept across processes (issue 30, ADR 0042): two
// real shipd processes on one database book shipments through one Allegro
// channel at once, against the fake Allegro, which retires every refresh
// token once it is used; their access tokens are revoked between rounds so
// both refresh, racing; then one is killed and started again. Every
// booking succeeds, and afterwards the channel's stored token is the one
// Allegro takes now, sealed at rest, while the channel's version, update
// time and record are as they were and its stream has no new event (so no
// webhook either). In the monolith both processes run every module; in the
// split deployment (ADR 0033) they run shipments alone and keep the token
// through the channels process's /internal route.

const processSecretKey = "allegro-process-test-secret-key-0123456789"

func TestRotatedRefreshTokenKeptByTwoProcessesAndARestart(t *testing.T) {
	bin := buildShipd(t)
	t.Run("monolith", func(t *testing.T) {
		t.Parallel()
		rotateAcrossProcesses(t, bin, func(t *testing.T, dsn, allegroURL string) (*shipdProcess, []*shipdProcess) {
			first := startShipd(t, bin, dsn, allegroURL, apptest.FreeAddr(t))
			return first, []*shipdProcess{first, startShipd(t, bin, dsn, allegroURL, apptest.FreeAddr(t))}
		})
	})
	t.Run("split", func(t *testing.T) {
		t.Parallel()
		rotateAcrossProcesses(t, bin, func(t *testing.T, dsn, allegroURL string) (*shipdProcess, []*shipdProcess) {
			channels := startShipd(t, bin, dsn, allegroURL, apptest.FreeAddr(t), "SHIPD_MODULES=channels", "INTERNAL_TOKEN="+processInternalToken)
			asking := []string{"SHIPD_MODULES=shipments", "CHANNELS_URL=" + channels.url, "INTERNAL_TOKEN=" + processInternalToken}
			return channels, []*shipdProcess{
				startShipd(t, bin, dsn, allegroURL, apptest.FreeAddr(t), asking...),
				startShipd(t, bin, dsn, allegroURL, apptest.FreeAddr(t), asking...),
			}
		})
	})
}

const processInternalToken = "allegro-process-test-internal-token-0123456789"

// rotateAcrossProcesses is the scenario; start starts the deployment's
// processes: the one serving channels, and the two that book (which may
// include it).
func rotateAcrossProcesses(t *testing.T, bin string, start func(t *testing.T, dsn, allegroURL string) (*shipdProcess, []*shipdProcess)) {
	dsn := pgtest.NewDatabase(t)
	f := newFake(t)
	// Each refresh is answered after a while, the used token retired at
	// once: both processes refreshing in a round race for one token.
	f.tokenDelay = 300 * time.Millisecond
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = shipdEnv(dsn, "127.0.0.1:0", f.srv.URL)
		return apptest.CommandOutput(t, cmd)
	}
	run("migrate", "up")
	out := strings.TrimSpace(run("keys", "create", "--account", "merchant", "--plan", "enterprise"))
	key := out[strings.LastIndex(out, "\n")+1:]
	channels, booking := start(t, dsn, f.srv.URL)
	first, second := booking[0], booking[1]

	// The merchant's channel, validated by the channels process (which
	// rotates the pasted token once already).
	status, ch := call(t, http.MethodPost, channels.url+"/v1/shipping-channels", key, map[string]any{
		"name": "Allegro", "provider": "allegro", "settings": map[string]any{
			"clientId": testClientID, "clientSecret": testClientSecret, "refreshToken": testRefreshToken,
			"deliveryMethodId": courierMethod, "sandboxMode": true,
		},
	})
	if status != http.StatusCreated {
		t.Fatalf("creating the channel: %d %v", status, ch)
	}
	id := ch["id"].(string)
	if status, body := call(t, http.MethodPost, channels.url+"/v1/shipping-channels/"+id+"/validate", key, nil); status != http.StatusOK {
		t.Fatalf("validating: %d %v", status, body)
	}
	db, err := postgres.Open(t.Context(), dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	before := channelRow(t, db, id)
	_, record := call(t, http.MethodGet, channels.url+"/v1/shipping-channels/"+id, key, nil)
	if before.token == testRefreshToken || !f.takes(before.token) {
		t.Fatalf("after validation the stored token is %q; Allegro takes it: %v", before.token, f.takes(before.token))
	}

	var shipments []string
	var mu sync.Mutex
	book := func(round int, targets ...*shipdProcess) {
		var wg sync.WaitGroup
		for i := range 6 {
			target := targets[i%len(targets)]
			wg.Go(func() {
				status, sh := call(t, http.MethodPost, target.url+"/v1/shipments", key, allegroShipment(id, fmt.Sprintf("r%d-%d", round, i)))
				if status != http.StatusCreated && status != http.StatusAccepted {
					t.Errorf("round %d, shipment %d: %d %v", round, i, status, sh)
					return
				}
				mu.Lock()
				shipments = append(shipments, sh["id"].(string))
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	for round := range 3 {
		f.revokeAccess() // both processes refresh, at once
		book(round, first, second)
		awaitBooked(t, first.url, key, shipments)
	}

	// The second process dies and starts again: it knows only what is
	// stored.
	second.Kill()
	second = startShipd(t, bin, dsn, f.srv.URL, second.addr, second.extra...)
	f.revokeAccess()
	book(3, second, first)
	awaitBooked(t, second.url, key, shipments)
	// Once more, the restarted process alone refreshing.
	f.revokeAccess()
	book(4, second)
	awaitBooked(t, second.url, key, shipments)

	f.mu.Lock()
	refreshes, refused := f.tokenCalls, f.refusedGrants
	f.mu.Unlock()
	t.Logf("%d refreshes, %d refused as used by the other process a moment before", refreshes, refused)
	if refused == 0 {
		t.Error("the processes never refreshed at once: the test proved nothing of the race")
	}
	after := channelRow(t, db, id)
	if !f.takes(after.token) {
		t.Errorf("the stored refresh token %q is one Allegro retired", after.token)
	}
	if after.token == before.token || f.tokenCount() < 6 {
		t.Errorf("no rotation was stored: %q after %d token calls", after.token, f.tokenCount())
	}
	if strings.Contains(after.sealed, after.token) || strings.Contains(after.sealed, "refreshToken") {
		t.Errorf("the refresh token rests in clear: %s", after.sealed)
	}
	if after.version != before.version || !after.updatedAt.Equal(before.updatedAt) || after.events != before.events {
		t.Errorf("the channel changed as clients see it: version %d → %d, updated_at %s → %s, events %d → %d",
			before.version, after.version, before.updatedAt, after.updatedAt, before.events, after.events)
	}
	_, got := call(t, http.MethodGet, channels.url+"/v1/shipping-channels/"+id, key, nil)
	if fmt.Sprint(got) != fmt.Sprint(record) || got["settings"].(map[string]any)["refreshToken"] != "••••••••" {
		t.Errorf("the channel's record changed or shows its secret:\n%v\nwas\n%v", got, record)
	}
	for _, p := range []*shipdProcess{channels, first, second} {
		if lines := p.LogLines("refresh token"); len(lines) > 0 {
			t.Errorf("a process logged about its refresh token:\n%s", strings.Join(lines, "\n"))
		}
	}
}

// takes reports whether Allegro would take refreshToken now.
func (f *fake) takes(refreshToken string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refreshTokens[refreshToken]
}

// storedChannelRow is what the channels table holds of the channel.
type storedChannelRow struct {
	token, sealed string
	version       int
	updatedAt     time.Time
	events        int // on the channels stream
}

// channelRow reads the channel's row and opens its sealed settings with
// the processes' key.
func channelRow(t *testing.T, db *sqlx.DB, id string) storedChannelRow {
	t.Helper()
	var row storedChannelRow
	err := db.QueryRow(`SELECT secret_settings, version, updated_at, (SELECT count(*) FROM watermill_channels)
		FROM channels.channels WHERE id = $1`, id).Scan(&row.sealed, &row.version, &row.updatedAt, &row.events)
	if err != nil {
		t.Fatal(err)
	}
	box, err := secrets.NewBox(processSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := box.Open(row.sealed)
	if err != nil {
		t.Fatalf("opening the stored secrets: %v", err)
	}
	var sealed struct {
		Values map[string]any `json:"values"`
	}
	if err := json.Unmarshal(plain, &sealed); err != nil {
		t.Fatal(err)
	}
	row.token, _ = sealed.Values["refreshToken"].(string)
	return row
}

// awaitBooked waits until every shipment is created at Allegro; a refused
// one fails the test at once.
func awaitBooked(t *testing.T, base, key string, ids []string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for _, id := range ids {
		for {
			_, sh := call(t, http.MethodGet, base+"/v1/shipments/"+id, key, nil)
			if errs, _ := sh["errors"].([]any); len(errs) > 0 {
				t.Fatalf("shipment %s refused: %v", id, errs)
			}
			if s := sh["status"]; s != "pending" {
				if s != "created" {
					t.Fatalf("shipment %s: %v", id, sh)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("shipment %s still pending: %v", id, sh)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// allegroShipment is a shipment the fake Allegro books by courier.
func allegroShipment(channelID, ref string) map[string]any {
	return map[string]any{
		"shipping_channel_id": channelID, "reference_number": ref, "label_format": "pdf", "enable_tracking": false,
		"sender_contact":      map[string]any{"company_name": "Sklep Kowalski", "email_address": "sklep@kowalski.pl", "phone_number": "+48500600700"},
		"recipient_contact":   map[string]any{"first_name": "Anna", "last_name": "Nowak", "email_address": "hamu7udk3p+17454c1b6@allegromail.pl", "phone_number": "+48600700800"},
		"origin_address":      map[string]any{"street_name": "Główna", "house_number": "30", "city_name": "Warszawa", "postal_code": "00-001", "country_code": "PL"},
		"destination_address": map[string]any{"street_name": "Długa", "house_number": "12", "city_name": "Kraków", "postal_code": "30-001", "country_code": "PL"},
		"parcels":             []map[string]any{{"length_dimension": 30, "width_dimension": 20, "height_dimension": 10, "weight_amount": 1.5}},
	}
}

// shipdProcess is a `shipd serve` of this test.
type shipdProcess struct {
	*apptest.Process
	addr, url string
	extra     []string // its environment beyond shipdEnv's
}

func shipdEnv(dsn, addr, allegroURL string, extra ...string) []string {
	env := append(os.Environ(), "DATABASE_URL="+dsn, "HTTP_ADDR="+addr, "LOG_LEVEL=warn", "SECRET_KEY="+processSecretKey,
		"SHIPD_TEST_ALLEGRO_URL="+allegroURL, "WORKER_POLL_INTERVAL=100ms")
	return append(env, extra...)
}

func startShipd(t *testing.T, bin, dsn, allegroURL, addr string, extra ...string) *shipdProcess {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = shipdEnv(dsn, addr, allegroURL, extra...)
	p := &shipdProcess{Process: apptest.StartProcess(t, "shipd serve "+addr, cmd), addr: addr, url: "http://" + addr, extra: extra}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last lines of shipd on %s:\n%s", addr, p.Tail(30))
		}
	})
	p.AwaitHealthy(t, p.url)
	return p
}

// buildShipd builds the shipd binary for the test.
func buildShipd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "shipd")
	if out, err := exec.Command("go", "build", "-o", bin, "shipd/cmd/shipd").CombinedOutput(); err != nil {
		t.Fatalf("building shipd: %v\n%s", err, out)
	}
	return bin
}

// call sends one request of the API with key and reads the JSON answer.
func call(t *testing.T, method, url, key string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, raw)
		}
	}
	if data, ok := out["data"].(map[string]any); ok {
		out = data
	}
	return res.StatusCode, out
}
