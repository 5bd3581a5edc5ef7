package testsupport

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ownersite/introductions/shared/intake"
)

// LedgerSchema compiles the ledger's JSON Schema (intake.LedgerSchema),
// with formats asserted, at fragment: "" for a whole ledger entry, or a
// pointer such as "#/$defs/envelope".
func LedgerSchema(t testing.TB, fragment string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(intake.LedgerSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("ledger.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("ledger.schema.json" + fragment)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// MatchesSchema fails the test, going on, when v as JSON does not match
// s; what names v in the message.
func MatchesSchema(t testing.TB, s *jsonschema.Schema, what string, v any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not match the ledger schema: %v\n%s", what, err, raw)
	}
}
