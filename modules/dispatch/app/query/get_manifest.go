package query

import (
	"context"

	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// GetManifest asks for one manifest of an account.
type GetManifest struct {
	AccountID string
	ID        string
}

// GetManifestHandler reads the write model.
type GetManifestHandler struct {
	manifests manifest.Repository
}

// NewGetManifestHandler reads manifests from the repository.
func NewGetManifestHandler(manifests manifest.Repository, obs usecase.Observer) usecase.QueryHandler[GetManifest, contract.Manifest] {
	return usecase.Query(GetManifestHandler{manifests: manifests}, obs)
}

// Handle returns the manifest's record.
func (h GetManifestHandler) Handle(ctx context.Context, q GetManifest) (contract.Manifest, error) {
	m, err := h.manifests.Get(ctx, q.ID)
	if err != nil {
		return contract.Manifest{}, err
	}
	if !m.BelongsTo(q.AccountID) {
		return contract.Manifest{}, notYourManifest()
	}
	return command.ManifestSnapshot(m.Stored()).Record(), nil
}

func notYourManifest() error { return fault.Forbidden("This manifest belongs to another account.") }

// ManifestDocument asks for a manifest's document.
type ManifestDocument struct {
	AccountID string
	ID        string
}

// Document is a manifest's document: a PDF, and a file name to save it as.
type Document struct {
	FileName string
	Data     []byte
}

// ManifestDocumentHandler reads a manifest's stored document.
type ManifestDocumentHandler struct {
	manifests manifest.Repository
}

// NewManifestDocumentHandler reads documents from the repository.
func NewManifestDocumentHandler(manifests manifest.Repository, obs usecase.Observer) usecase.QueryHandler[ManifestDocument, Document] {
	return usecase.Query(ManifestDocumentHandler{manifests: manifests}, obs)
}

// Handle returns the document of a created manifest.
func (h ManifestDocumentHandler) Handle(ctx context.Context, q ManifestDocument) (Document, error) {
	m, err := h.manifests.Get(ctx, q.ID)
	if err != nil {
		return Document{}, err
	}
	if !m.BelongsTo(q.AccountID) {
		return Document{}, notYourManifest()
	}
	if m.Stored().Status != manifest.StatusCreated {
		return Document{}, fault.Conflict("manifest_not_created", "The manifest is still being created; its document is not there yet.")
	}
	data, err := h.manifests.Document(ctx, q.ID)
	if err != nil {
		return Document{}, err
	}
	return Document{FileName: "manifest-" + q.ID + ".pdf", Data: data}, nil
}
