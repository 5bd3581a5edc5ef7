package testsupport

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ownersite/introductions/shared/intake"
)

// LedgerSchema compiles intake.LedgerSchema at fragment ("" or a pointer
// such as "#/$defs/envelope"), with formats asserted.
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

// MatchesSchema reports (t.Errorf) v as JSON not matching s.
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
