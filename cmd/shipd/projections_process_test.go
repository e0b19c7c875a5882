package main_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// runShipdStatus runs shipd and returns its output and exit code, for
// commands that are meant to fail.
func runShipdStatus(t *testing.T, dsn string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = shipdEnv(dsn, "127.0.0.1:0")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("shipd %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// channelTotal is meta.total of the key's channel list.
func channelTotal(t *testing.T, url, key string) string {
	t.Helper()
	res := send(t, http.MethodGet, url+"/v1/shipping-channels?per_page=1", key, nil)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`"total":(\d+)`).FindSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("channel list: %d %s", res.StatusCode, body)
	}
	return string(m[1])
}

func TestProjectionsCommands(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	p := startServe(t, dsn)
	// Enterprise: the list is polled below faster than a free key's
	// 60 requests a minute allow.
	out := runShipd(t, dsn, "keys", "create", "--account", "demo", "--plan", "enterprise")
	key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	for _, name := range []string{"Main", "Backup", "Spare"} {
		res := send(t, http.MethodPost, p.url+"/v1/shipping-channels", key, strings.NewReader(
			`{"name": "`+name+`", "provider": "sandbox", "settings": {"clientId": "a", "clientSecret": "b"}}`))
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("creating channel %s: %v", name, res)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for channelTotal(t, p.url, key) != "3" {
		if time.Now().After(deadline) {
			t.Fatal("the channel list never showed the three channels")
		}
		time.Sleep(20 * time.Millisecond) // between polls of the list

	}

	list := runShipd(t, dsn, "projections", "list")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^NAME\s+EVENTS\s+TABLES\s+TOPICS$`),
		regexp.MustCompile(`(?m)^channels\.channel_list\s+3\s+channels\.channel_list\s+channels$`),
		regexp.MustCompile(`(?m)^shipments\.shipment_list\s+0\s+shipments\.shipment_list,shipments\.shipment_list_seq,shipments\.shipment_counts,shipments\.shipment_list_blocks\s`),
		regexp.MustCompile(`(?m)^tracking\.parcel_list\s+0\s+tracking\.parcel_list\s`),
	} {
		if !want.MatchString(list) {
			t.Errorf("projections list lacks %s:\n%s", want, list)
		}
	}

	// Lose a channel from the read model; the rebuild brings it back.
	db, err := postgres.Open(context.Background(), dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM channels.channel_list WHERE record->>'name' = 'Backup'`); err != nil {
		t.Fatal(err)
	}
	if got := channelTotal(t, p.url, key); got != "2" {
		t.Fatalf("total after the corruption = %s, want 2", got)
	}
	stdout, stderr, code := runShipdStatus(t, dsn, "projections", "rebuild", "channels.channel_list")
	if code != 0 {
		t.Fatalf("rebuild exited %d:\n%s%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`^rebuilt channels\.channel_list from 3 events in \d+ms \(0 committed meanwhile; live writes waited \d+ms for the swap\)\n$`).MatchString(stdout) {
		t.Errorf("rebuild report:\n%s", stdout)
	}
	// Not a terminal: plain lines, one per stage.
	for _, want := range []string{
		"channels.channel_list replaying: 0/3 events (0%)\n",
		"channels.channel_list indexing: 3/3 events (100%), ",
		"channels.channel_list swapping: 3/3 events (100%), ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	if got := channelTotal(t, p.url, key); got != "3" {
		t.Errorf("total after the rebuild = %s, want 3", got)
	}

	// Without a name: every projection.
	stdout, stderr, code = runShipdStatus(t, dsn, "projections", "rebuild")
	if code != 0 || strings.Count(stdout, "rebuilt ") != 5 || !strings.Contains(stdout, "rebuilt tracking.parcel_list from 0 events") {
		t.Errorf("rebuild of all exited %d:\n%s%s", code, stdout, stderr)
	}

	for _, args := range [][]string{{"projections", "rebuild", "shipments.shipments"}, {"projections", "rebuild", "a", "b"}} {
		stdout, stderr, code = runShipdStatus(t, dsn, args...)
		if code == 0 || stdout != "" {
			t.Errorf("shipd %s exited %d with output %q", strings.Join(args, " "), code, stdout)
		}
		if args[2] == "shipments.shipments" && stderr != `shipd: unknown projection "shipments.shipments" (known: channels.channel_list, dispatch.manifest_list, dispatch.pickup_list, shipments.shipment_list, tracking.parcel_list)`+"\n" {
			t.Errorf("unknown projection: %q", stderr)
		}
	}
}

// On a terminal the progress is a bar with the rate and the time left.
func TestProjectionsRebuildDrawsABarOnATerminal(t *testing.T) {
	t.Parallel()
	script, err := exec.LookPath("script") // util-linux: runs a command on a pseudo-terminal
	if err != nil {
		t.Skip("no script(1) to give shipd a terminal")
	}
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(context.Background(), dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runShipd(t, dsn, "migrate", "up") // the streams' tables
	// Enough events for the bar to be drawn on its way, not only at the end.
	if _, err := db.Exec(`INSERT INTO "watermill_channels" (uuid, payload, metadata, transaction_id)
		SELECT 'evt_' || n, json_build_object('account_id', 'acc_1', 'version', 1, 'shipping_channel',
			json_build_object('id', 'ch_' || n, 'name', 'C' || n, 'provider', 'sandbox', 'status', 'draft', 'created_at', '2026-01-01T00:00:00Z')),
			'{"name": "shipping_channel.created"}', pg_current_xact_id()
		FROM generate_series(1, 2000) n`); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, "-qec", "stty cols 120 rows 40; "+binary+" projections rebuild channels.channel_list", "/dev/null")
	cmd.Env = shipdEnv(dsn, "127.0.0.1:0")
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rebuild on a terminal: %v\n%s", err, raw)
	}
	out := string(raw)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`channels\.channel_list replaying +\d+% \|[█ ]+\| \(\d+/2000, \d+ events/(s|min|hr)\) \[\d+(ms|s):\d+(ms|s)\]`), // bar, rate, elapsed:left
		regexp.MustCompile(`100% \|█+\| \(2000/2000`),
		regexp.MustCompile(`rebuilt channels\.channel_list from 2000 events in `),
	} {
		if !want.MatchString(out) {
			t.Errorf("terminal output lacks %s:\n%q", want, out)
		}
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM channels.channel_list`); err != nil || n != 2000 {
		t.Errorf("channels in the rebuilt read model: %d (%v), want 2000", n, err)
	}
}
