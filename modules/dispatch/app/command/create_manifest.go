package command

import (
	"context"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/dispatch/app/dispatching"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/failpoint"
	"shipd/platform/usecase"
)

// CreateManifest hands shipments of a channel over under the id the port
// chose.
type CreateManifest struct {
	AccountID  string
	ManifestID string
	Request    manifest.Request
}

// CreateManifestHandler makes manifests: the carrier's document where it
// makes one, shipd's own otherwise.
type CreateManifestHandler struct {
	manifests manifest.Repository
	shipments domain.Shipments
	channels  channels.Channels
	providers *carrier.Registry
	documents HandoverDocuments
	clock     clock.Clock
	timeout   time.Duration
}

// NewCreateManifestHandler draws shipd's documents with documents and
// bounds each carrier call by timeout.
func NewCreateManifestHandler(manifests manifest.Repository, shipments domain.Shipments, ch channels.Channels, providers *carrier.Registry,
	documents HandoverDocuments, clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[CreateManifest] {
	return usecase.Command(CreateManifestHandler{manifests: manifests, shipments: shipments, channels: ch, providers: providers,
		documents: documents, clock: clk, timeout: timeout}, obs)
}

// Handle checks the request, the channel and the shipments, stores the
// manifest as being created (its shipments held, so none goes on two), asks
// the carrier for its document or draws shipd's, and stores the manifest
// created with its document and manifest.created. A carrier that refuses or
// cannot be reached, or a document that cannot be drawn, leaves nothing
// stored.
func (h CreateManifestHandler) Handle(ctx context.Context, cmd CreateManifest) error {
	r := cmd.Request
	if err := r.Check(); err != nil {
		return err
	}
	ch, err := dispatching.OpenChannel(ctx, h.channels, h.providers, cmd.AccountID, r.ChannelID)
	if err != nil {
		return err
	}
	c := manifest.Context{ID: cmd.ManifestID, AccountID: cmd.AccountID, Provider: ch.Access.Provider, Dispatch: ch.Info.Dispatch,
		Named: r.ShipmentIDs != nil, Unknown: map[string]bool{}, Now: h.clock.Now()}
	if r.ShipmentIDs == nil {
		if c.Shipments, err = h.shipments.Undispatched(ctx, cmd.AccountID, r.ChannelID, manifest.MaxShipments); err != nil {
			return err
		}
	} else {
		known, err := h.shipments.Find(ctx, r.ShipmentIDs)
		if err != nil {
			return err
		}
		for _, id := range r.ShipmentIDs {
			if sh, ok := known[id]; ok {
				c.Shipments = append(c.Shipments, sh)
			} else {
				c.Unknown[id] = true
			}
		}
	}
	m, err := manifest.New(r, c)
	if err != nil {
		return err
	}
	if err := h.manifests.Add(ctx, m); err != nil {
		return err
	}
	if err := failpoint.Hit(failpoint.ManifestCreatingStored); err != nil {
		return err // its shipments held until ReleaseManifests forgets it
	}
	reference, document, err := h.document(ctx, ch, m, c.Shipments)
	if err != nil {
		if ferr := h.manifests.Forget(ctx, m.ID()); ferr != nil {
			return ferr
		}
		return err
	}
	byCarrier := m.AsksCarrier() && reference.Document != nil
	_, err = h.manifests.Complete(ctx, m.ID(), document, func(m *manifest.Manifest) ([]domain.Event, error) {
		now := h.clock.Now()
		if err := m.Created(reference.Reference, byCarrier, now); err != nil {
			return nil, err
		}
		return []domain.Event{contract.ManifestCreated{ManifestEvent: manifestEvent(m, now)}}, nil
	})
	return err
}

// document asks the carrier for its manifest where it makes one, and draws
// shipd's where it does not, or answered none.
func (h CreateManifestHandler) document(ctx context.Context, ch dispatching.Channel, m *manifest.Manifest, shipments []domain.Shipment) (carrier.CarrierManifest, []byte, error) {
	var answer carrier.CarrierManifest
	if m.AsksCarrier() && ch.Dispatcher != nil {
		carriedShipments := make([]carrier.DispatchShipment, len(shipments))
		for i, sh := range shipments {
			carriedShipments[i] = sh.Carried()
		}
		callCtx, cancel := context.WithTimeout(ctx, h.timeout)
		var err error
		answer, err = ch.Dispatcher.CreateManifest(callCtx, ch.Settings(), m.Handover(carriedShipments))
		cancel()
		if err != nil {
			return answer, nil, dispatching.CarrierFault(ctx, ch.Access.Provider, "manifest", "no manifest was made.", err)
		}
		if answer.Document != nil {
			return answer, answer.Document, nil
		}
	}
	s := m.Stored()
	date, _ := domain.ParseDate(s.Date)
	pdf, err := h.documents.Draw(Handover{Carrier: ch.Info.Name, ChannelName: ch.Access.Name, ManifestID: s.ID, Date: date,
		Sender: s.Sender, Origin: s.Origin, Shipments: shipments})
	return answer, pdf, err
}
