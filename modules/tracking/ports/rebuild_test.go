package ports_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"shipd/platform/apptest"
)

func TestRebuiltParcelListAnswersAsBeforeCorruption(t *testing.T) {
	t.Parallel()
	env, clk := manualEnv(t)
	key := env.NewKey("acme")
	chA := env.ActiveSandboxChannel(key, "A", nil)
	chB := env.ActiveSandboxChannel(key, "B", nil)
	var made []string
	for i, n := range []string{"SB000000014CZ", "SB100000017CZ", "SB400000015CZ", "SB500000018CZ", "SB200000010CZ", "SB300000012CZ"} {
		ch := chA
		if i%2 == 1 {
			ch = chB
		}
		made = append(made, createParcel(t, env, key, map[string]any{"tracking_number": n, "shipping_channel_id": ch})["id"].(string))
		clk.Advance(time.Second)
	}
	for _, id := range made {
		awaitChecks(t, env, key, id, 1)
	}
	// A day later the first parcel is delivered and the second has had its failed attempt.
	clk.Advance(27 * time.Hour)
	awaitChecks(t, env, key, made[0], 2)
	awaitChecks(t, env, key, made[1], 2)
	if res := env.Do(apptest.Request{Method: http.MethodPatch, Path: parcelsPath + "/" + made[2], Key: key,
		Body: map[string]any{"recipient_name": "Jana Nováková"}}); res.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	if res := env.Do(apptest.Request{Method: http.MethodDelete, Path: parcelsPath + "/" + made[5], Key: key}); res.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	paths := []string{parcelsPath, parcelsPath + "?per_page=2", parcelsPath + "?per_page=2&page=2", parcelsPath + "?per_page=2&page=3",
		parcelsPath + "?status=delivered", parcelsPath + "?status=delivery_failed", parcelsPath + "?status=not_recognized",
		parcelsPath + "?status=error", parcelsPath + "?shipping_channel_id=" + chB, parcelsPath + "?search=SB1",
		parcelsPath + "?status=returned&shipping_channel_id=" + chA}

	before := env.Settled(key, func(answers string) bool {
		return strings.Contains(answers, `"total":5`) && strings.Contains(answers, `"status":"delivered"`) && !strings.Contains(answers, made[5]) &&
			strings.Contains(answers, "Jana Nováková")
	}, paths...)
	for _, c := range []struct{ sql, id string }{
		{`DELETE FROM tracking.parcel_list WHERE id = $1`, made[0]},
		{`UPDATE tracking.parcel_list SET status = 'in_transit', version = 1000 WHERE id = $1`, made[1]},
		{`UPDATE tracking.parcel_list SET deleted = true WHERE id = $1`, made[2]},
		{`UPDATE tracking.parcel_list SET deleted = false WHERE id = $1`, made[5]}, // the deleted one back
	} {
		if _, err := env.ModuleDB("tracking").Exec(c.sql, c.id); err != nil {
			t.Fatal(err)
		}
	}
	if env.Answers(key, paths...) == before {
		t.Fatal("corrupting the read model changed no answer")
	}

	if _, err := env.Projections("tracking").Rebuild(t.Context(), "tracking.parcel_list", nil); err != nil {
		t.Fatal(err)
	}
	if after := env.Answers(key, paths...); after != before {
		t.Errorf("after the rebuild the list answers differently than before the corruption:\n%s", apptest.DiffLines(before, after))
	}
}
