package ports_test

import (
	"net/http"
	"testing"

	"shipd/platform/apptest"
)

// A misspelt member of a tracking parcel's body is refused, not dropped:
// each one a 422 naming it, on POST, PUT, PATCH and refresh, and nothing is
// stored or changed; external_data stays free-form.
func TestUnknownMembersAreRefused(t *testing.T) {
	t.Parallel()
	env, _, key, ch := sandboxAccount(t)
	env.Do(apptest.Request{Method: http.MethodPost, Path: parcelsPath, Key: key, Body: map[string]any{
		"tracking_number": "SB000000014CZ", "shipping_channel_id": ch, "recipient_emial": "jana@example.test", "max_check": 3}}).
		CheckUnknownFields(t, map[string]string{
			"recipient_emial": "unknown field; did you mean recipient_email?",
			"max_check":       "unknown field; did you mean max_checks?",
		})
	env.WantNoRows(t, "tracking.parcels", "parcels from a body with unknown members")

	tp := createParcel(t, env, key, map[string]any{"tracking_number": "SB000000014CZ", "shipping_channel_id": ch,
		"recipient_name": "Jana", "external_data": map[string]any{"any": map[string]any{"key": 1}}})
	path := parcelsPath + "/" + tp["id"].(string)
	for _, method := range []string{http.MethodPut, http.MethodPatch} {
		env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: map[string]any{"recipient_name": "Eva", "recipient_nmae": "Eva"}}).
			CheckUnknownFields(t, map[string]string{"recipient_nmae": "unknown field; did you mean recipient_name?"})
	}
	env.Do(apptest.Request{Method: http.MethodPost, Path: path + "/refresh", Key: key, Body: map[string]any{"now": true}}).
		CheckUnknownFields(t, map[string]string{"now": "unknown field; this request takes no fields"})
	if got := getParcel(t, env, key, tp["id"].(string)); got["recipient_name"] != "Jana" {
		t.Errorf("refused writes changed the parcel: %v", got)
	}
}
