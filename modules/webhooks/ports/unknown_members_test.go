package ports_test

import (
	"net/http"
	"testing"

	"shipd"
	"shipd/platform/apptest"
)

// A misspelt member of a subscription's body is refused, not dropped: each
// one a 422 naming it, on POST, PUT and PATCH, and nothing is stored or
// changed.
func TestUnknownMembersAreRefused(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	env.Do(apptest.Request{Method: http.MethodPost, Path: subsPath, Key: key, Body: goodBody(map[string]any{"secert": "s3cret", "headers": map[string]any{"X-A": "1"}})}).
		CheckUnknownFields(t, map[string]string{
			"secert":  "unknown field; did you mean secret?",
			"headers": "unknown field; the fields here are: name, url, events, secret, active, status",
		})
	env.WantNoRows(t, "webhooks.subscriptions", "subscriptions from a body with unknown members")

	sub := subscribe(t, env, key, goodBody(nil))
	path := subsPath + "/" + sub["id"].(string)
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: map[string]any{"name": "renamed", "event": []string{"shipment.deleted"}}}).
			CheckUnknownFields(t, map[string]string{"event": "unknown field; did you mean events?"})
	}
	var version int
	if err := env.ModuleDB("webhooks").Get(&version, `SELECT version FROM webhooks.subscriptions WHERE id = $1`, sub["id"]); err != nil || version != 1 {
		t.Errorf("refused writes changed the subscription: version %d (%v)", version, err)
	}
}
