package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	altcha "github.com/altcha-org/altcha-lib-go"
)

func payload(t *testing.T, c Case) string {
	t.Helper()
	b, err := json.Marshal(altcha.Payload{
		Algorithm: c.Challenge.Algorithm,
		Challenge: c.Challenge.Challenge,
		Number:    c.Number,
		Salt:      c.Challenge.Salt,
		Signature: c.Challenge.Signature,
	})
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestFixedCases(t *testing.T) {
	cases, err := fixedCases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 21 {
		t.Fatalf("got %d cases, want 21", len(cases))
	}
	again, _ := fixedCases()
	for i, c := range cases {
		if c != again[i] {
			t.Fatalf("case %d differs between calls: not deterministic", i)
		}
		if c.Number != int64(i)*5000 || c.Challenge.MaxNumber != 100000 {
			t.Errorf("case %d: number %d max %d", i, c.Number, c.Challenge.MaxNumber)
		}
		if !strings.Contains(c.Challenge.Salt, "?expires=4102444800&kv=1&") {
			t.Errorf("case %d: salt %q is not shaped like the service's", i, c.Challenge.Salt)
		}
		ok, err := altcha.VerifySolution(payload(t, c), hmacKey, true)
		if err != nil || !ok {
			t.Errorf("case %d: altcha-lib-go does not verify it (%v)", i, err)
		}
	}
}

func TestSolveFindsTheNumber(t *testing.T) {
	cases, err := generatedCases(40, 300, 7)
	if err != nil {
		t.Fatal(err)
	}
	if cases[0].Number != 0 || cases[1].Number != 300 {
		t.Fatalf("edges missing: %d, %d", cases[0].Number, cases[1].Number)
	}
	long := false
	for i, c := range cases {
		if len(c.Challenge.Salt) > 64 {
			long = true
		}
		n, err := solve(c.Challenge)
		if err != nil || n != c.Number {
			t.Errorf("case %d: solve = %d, %v; want %d", i, n, err, c.Number)
		}
		ok, err := altcha.VerifySolution(payload(t, c), hmacKey, true)
		if err != nil || !ok {
			t.Errorf("case %d: altcha-lib-go does not verify it (%v)", i, err)
		}
	}
	if !long {
		t.Error("no salt longer than one block: the generator does not exercise midstates")
	}
}

func TestSolveWithoutSolution(t *testing.T) {
	cases, _ := generatedCases(2, 50, 1)
	c := cases[1].Challenge
	c.MaxNumber = 49
	if n, err := solve(c); err == nil {
		t.Fatalf("solve = %d, want an error: the number is past max", n)
	}
}

func TestSolveReport(t *testing.T) {
	cases, _ := generatedCases(3, 20, 3)
	in, _ := json.Marshal(cases)
	var out bytes.Buffer
	if err := run([]string{"solve", "-in", "-", "-rounds", "1"}, bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 3 {
		t.Fatalf("got %d results", len(r.Results))
	}
	for i, res := range r.Results {
		if res.Number != cases[i].Number {
			t.Errorf("result %d: number %d, want %d", i, res.Number, cases[i].Number)
		}
	}
}

func TestMedian(t *testing.T) {
	for name, tc := range map[string]struct {
		in   []float64
		want float64
	}{
		"odd":   {[]float64{3, 1, 2}, 2},
		"even":  {[]float64{4, 1, 3, 2}, 2.5},
		"empty": {nil, 0},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("%s: median = %v, want %v", name, got, tc.want)
		}
	}
}
