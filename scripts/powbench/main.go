// Command powbench makes deterministic ALTCHA v1 challenges and solves them
// natively, as the baseline for the browser solver's benchmark and the
// oracle for its correctness test.
//
//	powbench challenges                     the 21 fixed benchmark challenges (JSON)
//	powbench solve [-in FILE|-] [-rounds N] solve them on one core, print times (JSON)
//	powbench make -n 200 -max 1000 [-seed S] generated challenges for the correctness test
//
// Every challenge is made with altcha-lib-go's CreateChallenge under a fixed
// HMAC key, with a salt shaped like the service's (far-future expiry), and
// printed as {"challenge": <ALTCHA v1 challenge>, "number": <the secret>}.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strconv"
	"time"

	altcha "github.com/altcha-org/altcha-lib-go"

	"github.com/ownersite/introductions/shared/altchapow"
)

// hmacKey signs the benchmark's challenges; it protects nothing.
const hmacKey = "powbench-fixed-hmac-key-0123456789abcdef"

// farExpiry is 2100-01-01T00:00:00Z, so the fixed challenges never expire.
var farExpiry = time.Unix(4102444800, 0).UTC()

// Case is one challenge with the number that solves it.
type Case struct {
	Challenge altchapow.Challenge `json:"challenge"`
	Number    int64               `json:"number"`
}

// Result is one native solve.
type Result struct {
	Number int64   `json:"number"`
	TookMs float64 `json:"tookMs"`
}

// Report is the output of the solve mode.
type Report struct {
	Solver   string   `json:"solver"`
	Method   string   `json:"method"`
	Rounds   int      `json:"rounds"`
	Results  []Result `json:"results"`
	MedianMs float64  `json:"medianMs"`
}

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "powbench:", err)
		os.Exit(2)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: powbench challenges | solve [-in FILE|-] [-rounds N] | make -n N -max M [-seed S]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	n := fs.Int("n", 200, "make: how many challenges (the first two solve to 0 and max)")
	maxNumber := fs.Int64("max", 1000, "make: max number of every challenge")
	seed := fs.Uint64("seed", 1, "make: seed of the generator")
	in := fs.String("in", "", "solve: JSON file of cases to solve ('-' for stdin); default the fixed 21")
	rounds := fs.Int("rounds", 3, "solve: solve each case this many times and keep its median")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	var out any
	var err error
	switch args[0] {
	case "challenges":
		out, err = fixedCases()
	case "make":
		out, err = generatedCases(*n, *maxNumber, *seed)
	case "solve":
		var cases []Case
		if cases, err = readCases(*in, stdin); err == nil {
			out, err = solveAll(cases, max(*rounds, 1))
		}
	default:
		return fmt.Errorf("unknown mode %q", args[0])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(out)
}

// fixedCases returns the 21 benchmark challenges: max number 100,000 and
// secret numbers 0, 5,000, …, 100,000.
func fixedCases() ([]Case, error) {
	cases := make([]Case, 0, 21)
	for i := range int64(21) {
		sum := sha256.Sum256([]byte("powbench-salt-" + strconv.FormatInt(i, 10)))
		c, err := makeCase(hex.EncodeToString(sum[:12]), i*5000, 100000)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// generatedCases returns n challenges of maxNumber, the first solving to 0 and the second to
// maxNumber, with salts of varied length.
func generatedCases(n int, maxNumber int64, seed uint64) ([]Case, error) {
	if n < 2 || maxNumber < 1 {
		return nil, errors.New("make needs -n >= 2 and -max >= 1")
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	cases := make([]Case, 0, n)
	for i := range n {
		number := []int64{0, maxNumber, rng.Int64N(maxNumber + 1)}[min(i, 2)]
		raw := make([]byte, 1+rng.IntN(64))
		for j := range raw {
			raw[j] = byte(rng.Uint32())
		}
		c, err := makeCase(hex.EncodeToString(raw), number, maxNumber)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func makeCase(salt string, number, maxNumber int64) (Case, error) {
	expires := farExpiry
	ch, err := altcha.CreateChallenge(altcha.ChallengeOptions{Algorithm: altcha.SHA256, MaxNumber: maxNumber, HMACKey: hmacKey,
		Salt: salt, Number: &number, Expires: &expires, Params: url.Values{"kv": {"1"}}})
	if err != nil {
		return Case{}, err
	}
	return Case{altchapow.Challenge{Algorithm: ch.Algorithm, Challenge: ch.Challenge, MaxNumber: ch.MaxNumber,
		Salt: ch.Salt, Signature: ch.Signature}, number}, nil
}

func readCases(in string, stdin io.Reader) ([]Case, error) {
	if in == "" {
		return fixedCases()
	}
	var r io.Reader = stdin
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var cases []Case
	if err := json.NewDecoder(r).Decode(&cases); err != nil {
		return nil, fmt.Errorf("reading cases: %w", err)
	}
	return cases, nil
}

// solveAll solves every case rounds times after a warm-up and reports the medians.
func solveAll(cases []Case, rounds int) (Report, error) {
	report := Report{Solver: "go-native-single-core", Rounds: rounds,
		Method: "loop n=0..maxnumber, sha256.Sum256(salt+decimal(n)) into a reused buffer, compare digest bytes"}
	if len(cases) > 0 {
		if _, err := solve(cases[0].Challenge); err != nil {
			return report, err
		}
	}
	var medians []float64
	for _, c := range cases {
		times := make([]float64, 0, rounds)
		var number int64
		for range rounds {
			start := time.Now()
			n, err := solve(c.Challenge)
			if err != nil {
				return report, err
			}
			number = n
			times = append(times, float64(time.Since(start).Microseconds())/1000)
		}
		m := median(times)
		report.Results = append(report.Results, Result{Number: number, TookMs: m})
		medians = append(medians, m)
	}
	report.MedianMs = median(medians)
	return report, nil
}

// solve finds the number in 0..maxnumber whose SHA-256(salt+number) is the
// challenge, or -1 with an error when there is none.
func solve(c altchapow.Challenge) (int64, error) {
	if c.Algorithm != "SHA-256" {
		return -1, fmt.Errorf("unsupported algorithm %q", c.Algorithm)
	}
	want, err := hex.DecodeString(c.Challenge)
	if err != nil || len(want) != sha256.Size {
		return -1, errors.New("challenge is not a SHA-256 hex digest")
	}
	var target [sha256.Size]byte
	copy(target[:], want)
	buf := make([]byte, 0, len(c.Salt)+20)
	buf = append(buf, c.Salt...)
	prefix := len(buf)
	for n := int64(0); n <= c.MaxNumber; n++ {
		buf = strconv.AppendInt(buf[:prefix], n, 10)
		if sha256.Sum256(buf) == target {
			return n, nil
		}
	}
	return -1, fmt.Errorf("no solution in 0..%d", c.MaxNumber)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
