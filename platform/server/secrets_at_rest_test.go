package server_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"shipd"
	"shipd/platform/apptest"
)

// No secret rests in clear anywhere: after channels of every provider with
// their secret settings, given and generated webhook secrets, replays of
// every keyed create, a validation, a shipment and the webhook deliveries it
// causes, every text, JSON and byte column of every table is searched for
// every secret used.
func TestNoSecretAtRestInClear(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("secrets")
	receiver, delivered := webhookReceiver(t)

	// keyed sends req twice with one Idempotency-Key: the second answer is
	// the stored one, replayed.
	n := 0
	keyed := func(req apptest.Request, want int) *apptest.Response {
		t.Helper()
		n++
		req.Key = key
		req.Headers = map[string]string{"Idempotency-Key": fmt.Sprintf("secrets-%d", n)}
		first, again := env.Do(req), env.Do(req)
		if first.Status != want || again.Status != want || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%s %s: %d then %d (replayed %q): %s", req.Method, req.Path, first.Status, again.Status,
				again.Header.Get("Idempotent-Replayed"), again.Body)
		}
		return again
	}

	var secrets, clear []string
	secret := func(what string) string {
		s := "S3cret" + what + rand.Text()[:12]
		secrets = append(secrets, s)
		return s
	}
	providers := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/providers", Key: key})
	var list struct {
		Data []struct {
			Code     string `json:"code"`
			Settings []struct {
				Key      string   `json:"key"`
				Type     string   `json:"type"`
				Required bool     `json:"required"`
				Secret   bool     `json:"secret"`
				Enum     []string `json:"enum"`
			} `json:"settings"`
		} `json:"data"`
	}
	if err := json.Unmarshal(providers.Body, &list); err != nil || len(list.Data) < 5 {
		t.Fatalf("providers: %v: %s", err, providers.Body)
	}
	var sandboxChannel string
	for _, p := range list.Data {
		settings := map[string]any{}
		for _, s := range p.Settings {
			switch {
			case s.Secret:
				settings[s.Key] = secret(s.Key)
			case s.Required && len(s.Enum) > 0:
				settings[s.Key] = s.Enum[0]
			case s.Required && s.Type == "string":
				v := "Plain" + s.Key + rand.Text()[:8]
				settings[s.Key] = v
				clear = append(clear, v)
			}
		}
		ch := keyed(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels",
			Body: map[string]any{"name": "Secrets " + p.Code, "provider": p.Code, "settings": settings}}, http.StatusCreated)
		if strings.Contains(string(ch.Body), "S3cret") {
			t.Fatalf("a channel answer shows a secret: %s", ch.Body)
		}
		if p.Code == "sandbox" {
			sandboxChannel, _ = ch.Data(t)["id"].(string)
		}
	}
	keyed(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels/" + sandboxChannel + "/validate"}, http.StatusOK)
	// A secret changed later, through PATCH, rests sealed too.
	if res := env.Do(apptest.Request{Method: http.MethodPatch, Path: "/v1/shipping-channels/" + sandboxChannel, Key: key,
		Body: map[string]any{"settings": map[string]any{"clientId": "client", "clientSecret": secret("Patched")}}}); res.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	keyed(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels/" + sandboxChannel + "/validate"}, http.StatusOK)

	events := []string{"shipment.created", "shipment.updated", "shipment.status_changed"}
	keyed(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions",
		Body: map[string]any{"name": "given", "url": receiver + "/given", "events": events, "secret": secret("Webhook")}}, http.StatusCreated)
	generated := keyed(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions",
		Body: map[string]any{"name": "generated", "url": receiver + "/generated", "events": events}}, http.StatusCreated)
	g, _ := generated.JSON(t)["generated_secret"].(string)
	if g == "" {
		t.Fatalf("the replayed answer lost the generated secret: %s", generated.Body)
	}
	secrets = append(secrets, g)

	keyed(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Body: shipment(sandboxChannel)}, http.StatusCreated)
	apptest.Eventually(t, 20*time.Second, "webhook deliveries of the shipment's events", func() bool { return delivered.Load() >= 4 })

	found := scanColumns(t, env, append(append([]string(nil), secrets...), clear...))
	for _, s := range clear {
		if len(found[s]) == 0 {
			t.Errorf("the scan did not find %s, a setting stored in clear on purpose: it cannot see the tables", s)
		}
	}
	for _, s := range secrets {
		if len(found[s]) > 0 {
			t.Errorf("secret %s rests in clear in %s", s, strings.Join(found[s], ", "))
		}
	}
}

// scanColumns returns, for each value, the columns (schema.table.column)
// of the database that hold it anywhere in their text.
func scanColumns(t *testing.T, env *apptest.Env, values []string) map[string][]string {
	t.Helper()
	var cols []struct {
		Schema string `db:"table_schema"`
		Table  string `db:"table_name"`
		Column string `db:"column_name"`
		Type   string `db:"data_type"`
	}
	err := env.DB.Select(&cols, `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
		FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
		  AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')`)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) < 50 {
		t.Fatalf("only %d columns to scan", len(cols))
	}
	found := map[string][]string{}
	for _, c := range cols {
		col := pq.QuoteIdentifier(c.Column)
		match := `strpos(` + col + `::text, v) > 0`
		if c.Type == "bytea" {
			match = `position(convert_to(v, 'UTF8') in ` + col + `) > 0`
		}
		var hits []string
		q := `SELECT v FROM unnest($1::text[]) v WHERE EXISTS (SELECT 1 FROM ` +
			pq.QuoteIdentifier(c.Schema) + `.` + pq.QuoteIdentifier(c.Table) + ` WHERE ` + match + `)`
		if err := env.DB.Select(&hits, q, pq.Array(values)); err != nil {
			t.Fatalf("%s.%s.%s: %v", c.Schema, c.Table, c.Column, err)
		}
		for _, h := range hits {
			found[h] = append(found[h], c.Schema+"."+c.Table+"."+c.Column)
		}
	}
	return found
}
