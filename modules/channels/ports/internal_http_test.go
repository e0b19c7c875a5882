package ports_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"shipd"
	channelscontract "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/remote"
	"shipd/platform/apptest"
	"shipd/platform/carrier"
	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/secrets"
	"shipd/platform/txguard"
)

const internalToken = "channels-test-internal-token-0123456789"

// A process that runs shipments or tracking without channels asks the
// channels process for a channel (ADR 0033): with the internal token, the
// channel's settings come sealed with the shared key and open to what the
// channels process stored; the faults are the local facade's.
func TestAnotherProcessAsksForAChannelWithItsSettingsSealed(t *testing.T) {
	t.Parallel()
	apptest.SkipInSplit(t, "it asks the channels process directly, which the proxy hides (a test below checks that)")
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.InternalToken = internalToken }))
	key := env.NewKey("acme")
	ch := createChannel(t, env, key, "Main")
	id := ch["id"].(string)
	var account string
	if err := env.DB.Get(&account, `SELECT account_id FROM channels.channels WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	box, err := secrets.NewBox(env.Config.SecretKey)
	if err != nil {
		t.Fatal(err)
	}
	channels := remote.New(env.URL(), internalToken, box)

	got, err := channels.ChannelForUse(context.Background(), account, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != id || got.AccountID != account || got.Provider != "sandbox" || got.Settings["clientSecret"] != "top-secret-value" {
		t.Errorf("remote access %+v, want channel %s of %s with its secret settings", got, id, account)
	}
	// Not from inside an open database transaction (ADR 0001).
	inTx := txguard.Hold(context.Background(), "the test's transaction", nil)
	if err := txguard.Refusal(func() { _, _ = channels.ChannelForUse(inTx, account, id) }); !errors.Is(err, txguard.ErrInTransaction) {
		t.Errorf("asked inside a transaction: %v, want a refusal", err)
	}

	other := env.NewKey("other")
	otherChannel := createChannel(t, env, other, "Theirs")["id"].(string)
	if _, err := channels.ChannelForUse(context.Background(), account, otherChannel); !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's channel: %v, want forbidden", err)
	}
	if _, err := channels.ChannelForUse(context.Background(), account, "ch_01M0000000000000000000000"); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("no such channel: %v, want not found", err)
	}

	// On the wire the settings are sealed; without the token nothing answers.
	for _, c := range []struct {
		token  string
		status int
	}{{internalToken, http.StatusOK}, {"", http.StatusUnauthorized}, {strings.Repeat("x", 40), http.StatusUnauthorized}} {
		req, _ := http.NewRequest(http.MethodGet, env.URL()+"/internal/channels/"+id+"/access?account_id="+account, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body := string(raw)
		if res.StatusCode != c.status {
			t.Errorf("token %q: %d, want %d: %s", c.token, res.StatusCode, c.status, body)
		}
		if strings.Contains(body, "top-secret-value") || strings.Contains(body, "client-1") {
			t.Errorf("the settings crossed the wire in clear: %s", body)
		}
	}
}

// Without INTERNAL_TOKEN no process serves /internal; in the split topology
// the proxy does not route it either.
func TestInternalRoutesAreNotServedToClients(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	id := createChannel(t, env, key, "Main")["id"].(string)
	for _, auth := range []string{"", "Bearer " + internalToken} {
		req, _ := http.NewRequest(http.MethodGet, env.URL()+"/internal/channels/"+id+"/access", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET /internal/... with %q: %d, want 404", auth, res.StatusCode)
		}
	}
}

// A process without channels keeps a credential its carrier renewed
// through the channels process (ADR 0042): the values cross the wire
// sealed, the channels process stores the renewed one sealed over a value
// the carrier retired (and keeps any other), and no client sees a change.
func TestAnotherProcessKeepsARenewedCredential(t *testing.T) {
	t.Parallel()
	apptest.SkipInSplit(t, "it asks the channels process directly, which the proxy hides")
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.InternalToken = internalToken }))
	key := env.NewKey("acme")
	id := createChannel(t, env, key, "Main")["id"].(string)
	before := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/" + id, Key: key}).Data(t)
	var account string
	if err := env.DB.Get(&account, `SELECT account_id FROM channels.channels WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	box, err := secrets.NewBox(env.Config.SecretKey)
	if err != nil {
		t.Fatal(err)
	}
	channels := remote.New(env.URL(), internalToken, box)
	ctx := context.Background()
	access, err := channels.ChannelForUse(ctx, account, id)
	if err != nil {
		t.Fatal(err)
	}
	keeper := carrier.Settings(access.Settings).Keeper()
	if keeper == nil {
		t.Fatal("the remote facade's settings carry no keeper")
	}
	env.NextSecond()

	if err := keeper.Renew(ctx, "clientSecret", []string{"top-secret-value"}, "renewed-secret-value"); err != nil {
		t.Fatal(err)
	}
	if got, err := keeper.Stored(ctx, "clientSecret"); err != nil || got != "renewed-secret-value" {
		t.Errorf("stored after the renewal: %q, %v", got, err)
	}
	// A renewal over a value it did not retire keeps the stored one.
	if err := keeper.Renew(ctx, "clientSecret", []string{"top-secret-value"}, "stale-renewal"); err != nil {
		t.Fatal(err)
	}
	if got, _ := keeper.Stored(ctx, "clientSecret"); got != "renewed-secret-value" {
		t.Errorf("a stale renewal stored %q", got)
	}

	var sealed string
	if err := env.DB.Get(&sealed, `SELECT secret_settings FROM channels.channels WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "renewed-secret-value") || !strings.HasPrefix(sealed, "v1:") {
		t.Errorf("the renewed secret is not sealed at rest: %s", sealed)
	}
	after := env.Do(apptest.Request{Method: http.MethodGet, Path: channelsPath + "/" + id, Key: key}).Data(t)
	if !reflect.DeepEqual(after, before) {
		t.Errorf("the client sees a change:\n%v\nwas\n%v", after, before)
	}

	other := env.NewKey("other")
	theirs := createChannel(t, env, other, "Theirs")["id"].(string)
	err = channels.RenewCredential(ctx, channelscontract.CredentialRenewal{AccountID: account, ChannelID: theirs, Key: "clientSecret",
		Retired: []string{"top-secret-value"}, Renewed: "mine"})
	if !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's channel: %v, want forbidden", err)
	}

	// Values in clear are refused: the route takes them sealed only.
	req, _ := http.NewRequest(http.MethodPost, env.URL()+"/internal/channels/"+id+"/credentials?account_id="+account,
		strings.NewReader(`{"key": "clientSecret", "sealed": "{\"retired\": [\"renewed-secret-value\"], \"renewed\": \"x\"}"}`))
	req.Header.Set("Authorization", "Bearer "+internalToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("values in clear: %d, want 422", res.StatusCode)
	}
	if got, _ := keeper.Stored(ctx, "clientSecret"); got != "renewed-secret-value" {
		t.Errorf("after the refused requests: %q", got)
	}
}
