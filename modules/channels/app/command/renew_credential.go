package command

import (
	"context"
	"maps"
	"slices"
	"sync"

	"shipd/modules/channels/domain"
	"shipd/platform/usecase"
)

// RenewCredential stores a credential the carrier renewed on its own (a
// rotated refresh token) as the channel's secret setting Key, if the
// value stored is one of Retired (ADR 0042).
type RenewCredential struct {
	AccountID string
	ChannelID string
	Key       string
	Retired   []string // values the carrier no longer takes
	Renewed   string
}

// RenewCredentialHandler keeps what carrier adapters renew, for every
// process: sealed like every secret, without an event, a new version or a
// new update time.
type RenewCredentialHandler struct {
	repo domain.Repository
}

// NewRenewCredentialHandler renews credentials in repo.
func NewRenewCredentialHandler(repo domain.Repository, obs usecase.Observer) usecase.CommandHandler[RenewCredential] {
	return usecase.Command(RenewCredentialHandler{repo: repo}, obs)
}

// Handle is a compare-and-swap under the channel's row lock: a stored
// value the carrier has not retired (the merchant's new token, or one
// another process renewed since) is kept, and that is no error.
func (h RenewCredentialHandler) Handle(ctx context.Context, cmd RenewCredential) error {
	return renewCredential(ctx, h.repo, cmd)
}

func renewCredential(ctx context.Context, repo domain.Repository, cmd RenewCredential) error {
	return repo.RenewSecrets(ctx, cmd.ChannelID, func(ch *domain.Channel) (bool, error) {
		if err := owned(ch, cmd.AccountID); err != nil {
			return false, err
		}
		return ch.RenewSecret(cmd.Key, cmd.Retired, cmd.Renewed)
	})
}

// validationKeeper is the carrier.CredentialKeeper of the channel being
// validated: the carrier may renew a credential during the check, and the
// validation's result must then be recorded on the settings as renewed
// (renewedSettings), not refused as a change made meanwhile.
type validationKeeper struct {
	repo      domain.Repository
	accountID string
	channelID string

	mu       sync.Mutex
	renewals []RenewCredential
}

// Stored reads the channel's value of key now.
func (k *validationKeeper) Stored(ctx context.Context, key string) (string, error) {
	ch, err := k.repo.Get(ctx, k.channelID)
	if err != nil {
		return "", err
	}
	if err := owned(ch, k.accountID); err != nil {
		return "", err
	}
	v, _ := ch.Settings()[key].(string)
	return v, nil
}

// Renew renews the credential and remembers that it asked to.
func (k *validationKeeper) Renew(ctx context.Context, key string, retired []string, renewed string) error {
	cmd := RenewCredential{AccountID: k.accountID, ChannelID: k.channelID, Key: key, Retired: retired, Renewed: renewed}
	if err := renewCredential(ctx, k.repo, cmd); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.renewals = append(k.renewals, cmd)
	return nil
}

// renewedSettings are checked as they are stored once the renewals the
// carrier made during the check took effect.
func (k *validationKeeper) renewedSettings(checked map[string]any) map[string]any {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := maps.Clone(checked)
	for _, r := range k.renewals {
		if cur, _ := out[r.Key].(string); slices.Contains(r.Retired, cur) {
			out[r.Key] = r.Renewed
		}
	}
	return out
}
