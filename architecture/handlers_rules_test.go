package architecture_test

// Unit tests of rule 8's checker (handlers_test.go): each way of breaking
// the handler shape is caught, and the shape itself passes.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

const goodCommand = `package command

import (
	"context"

	"shipd/platform/usecase"
)

type CancelShipment struct{ ID string }

type CancelShipmentHandler struct{ repo Repository }

func NewCancelShipmentHandler(repo Repository, obs usecase.Observer) usecase.CommandHandler[CancelShipment] {
	return usecase.Command(CancelShipmentHandler{repo: repo}, obs)
}

func (h CancelShipmentHandler) Handle(ctx context.Context, cmd CancelShipment) error { return nil }

func (h CancelShipmentHandler) cancel() {}
`

const goodQuery = `package query

import (
	"context"

	"shipd/platform/usecase"
)

type GetShipment struct{ ID string }

type GetShipmentHandler struct{ repo Repository }

func NewGetShipmentHandler(repo Repository, obs usecase.Observer) usecase.QueryHandler[GetShipment, Shipment] {
	return usecase.Query(GetShipmentHandler{repo: repo}, obs)
}

func (h GetShipmentHandler) Handle(ctx context.Context, q GetShipment) (Shipment, error) { return Shipment{}, nil }
`

const goodApp = `package app

type Commands struct {
	CancelShipment usecase.CommandHandler[command.CancelShipment]
}

type Queries struct {
	GetShipment usecase.QueryHandler[query.GetShipment, contract.Shipment]
}
`

func shapeViolations(t *testing.T, rel, src string) []violation {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	vs := checkHandlerShape(fset, rel, f)
	return append(vs, handlersWithoutHandle(fset, []string{rel}, []*ast.File{f})...)
}

func TestHandlerShapeAllowsTheShape(t *testing.T) {
	for rel, src := range map[string]string{
		"modules/shipments/app/command/cancel.go": goodCommand,
		"modules/shipments/app/query/get.go":      goodQuery,
		"modules/shipments/app/app.go":            goodApp,
		// Outside a module's app, the rule has nothing to say.
		"modules/shipments/ports/http.go": strings.Replace(goodCommand, "ctx context.Context, cmd CancelShipment) error", "cmd CancelShipment) int", 1),
	} {
		if vs := shapeViolations(t, rel, src); len(vs) != 0 {
			t.Errorf("%s: %v", rel, vs)
		}
	}
}

func TestHandlerShapeCatchesEveryDeparture(t *testing.T) {
	for _, tc := range []struct{ name, rel, src, wantSubject string }{
		{"a command returning a result", "modules/shipments/app/command/cancel.go",
			strings.Replace(goodCommand, "cmd CancelShipment) error { return nil }", "cmd CancelShipment) (Shipment, error) { return Shipment{}, nil }", 1),
			"CancelShipmentHandler.Handle"},
		{"loose arguments instead of a command", "modules/shipments/app/command/book.go",
			strings.Replace(goodCommand, "cmd CancelShipment) error", "id string, giveUp bool) error", 1), "CancelShipmentHandler.Handle"},
		{"no context", "modules/shipments/app/command/cancel.go",
			strings.Replace(goodCommand, "ctx context.Context, cmd CancelShipment", "cmd CancelShipment", 1), "CancelShipmentHandler.Handle"},
		{"a query without an error", "modules/shipments/app/query/get.go",
			strings.Replace(goodQuery, "q GetShipment) (Shipment, error) { return Shipment{}, nil }", "q GetShipment) Shipment { return Shipment{} }", 1),
			"GetShipmentHandler.Handle"},
		{"a second exported method", "modules/shipments/app/command/cancel.go",
			strings.Replace(goodCommand, "func (h CancelShipmentHandler) cancel() {}", "func (h CancelShipmentHandler) Claim() {}", 1), "CancelShipmentHandler.Claim"},
		{"a handler without Handle", "modules/shipments/app/command/cancel.go",
			strings.Replace(goodCommand, "func (h CancelShipmentHandler) Handle(", "func (h CancelShipmentHandler) handle(", 1), "without Handle"},
		{"a constructor returning the bare handler", "modules/shipments/app/command/cancel.go",
			strings.Replace(strings.Replace(goodCommand, "usecase.CommandHandler[CancelShipment] {", "CancelShipmentHandler {", 1),
				"return usecase.Command(CancelShipmentHandler{repo: repo}, obs)", "return CancelShipmentHandler{repo: repo}", 1), "NewCancelShipmentHandler"},
		{"a constructor that skips the decorators", "modules/shipments/app/command/cancel.go",
			strings.Replace(goodCommand, "return usecase.Command(CancelShipmentHandler{repo: repo}, obs)", "return CancelShipmentHandler{repo: repo}", 1),
			"does not return usecase.Command"},
		{"a query built as a command", "modules/shipments/app/query/get.go",
			strings.Replace(goodQuery, "usecase.Query(GetShipmentHandler", "usecase.Command(GetShipmentHandler", 1), "does not return usecase.Query"},
		{"an application holding a bare handler", "modules/shipments/app/app.go",
			strings.Replace(goodApp, "usecase.CommandHandler[command.CancelShipment]", "command.CancelShipmentHandler", 1), "Commands field"},
		{"queries holding a command handler", "modules/shipments/app/app.go",
			strings.Replace(goodApp, "usecase.QueryHandler[query.GetShipment, contract.Shipment]", "usecase.CommandHandler[query.GetShipment]", 1), "Queries field"},
	} {
		vs := shapeViolations(t, tc.rel, tc.src)
		if len(vs) == 0 {
			t.Errorf("%s: not caught", tc.name)
			continue
		}
		if vs[0].Rule != 8 || !strings.Contains(vs[0].Subject, tc.wantSubject) {
			t.Errorf("%s: caught as %v, want rule 8 naming %q", tc.name, vs[0], tc.wantSubject)
		}
	}
}
