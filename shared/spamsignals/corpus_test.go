package spamsignals

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ownersite/introductions/shared/contentrules"
	"github.com/ownersite/introductions/shared/intake"
)

// sample is one labelled introduction of testdata/legitimate.jsonl or
// testdata/spam.jsonl: synthetic, written for this project.
type sample struct {
	Label   string `json:"label"`
	Kind    string `json:"kind"`
	Lang    string `json:"lang"`
	Name    string `json:"name"`
	Company string `json:"company"`
	Role    string `json:"role"`
	Email   string `json:"email"`
	Message string `json:"message"`
	Page    *struct {
		FillMs     int64 `json:"fillMs"`
		Automation bool  `json:"automation"`
	} `json:"page"`
}

func loadCorpus(t testing.TB, file string) []sample {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (s sample) submission() intake.Submission {
	sub := intake.Submission{Fields: intake.Fields{Name: s.Name, Company: s.Company, Role: s.Role, Email: s.Email, Message: s.Message}}
	if s.Page != nil {
		sub.Page = intake.PageReport{Reported: true, FillMillis: s.Page.FillMs, Automation: s.Page.Automation}
	}
	return sub
}

// judged is a sample with the signals the intake would give it, the
// repeated-message one decided as the store does: the same RepeatKey seen
// before in the run from another address.
type judged struct {
	sample
	signals []string
}

// judgeCorpus runs every sample, the legitimate ones first, through the
// signals in file order, remembering messages as the store would.
func judgeCorpus(t testing.TB) []judged {
	seen := map[string]string{} // RepeatKey → the last sender's normalised address
	var out []judged
	for _, file := range []string{"legitimate.jsonl", "spam.jsonl"} {
		for _, s := range loadCorpus(t, file) {
			signals := Of(s.submission())
			if k := RepeatKey(s.Message); k != "" {
				sender := contentrules.NormaliseEmail(s.Email)
				if last, ok := seen[k]; ok && last != sender {
					signals = append(signals, RepeatedMessage)
				}
				seen[k] = sender
			}
			out = append(out, judged{s, signals})
		}
	}
	return out
}

// TestCorpusShape holds the corpus to what it claims: at least 60 of each,
// legitimate ones in each language, recruiters and others, with links,
// short and long.
func TestCorpusShape(t *testing.T) {
	legit, spam := loadCorpus(t, "legitimate.jsonl"), loadCorpus(t, "spam.jsonl")
	if len(legit) < 60 || len(spam) < 60 {
		t.Fatalf("corpus has %d legitimate and %d spam, want at least 60 each", len(legit), len(spam))
	}
	langs, kinds := map[string]int{}, map[string]int{}
	var links, short, long int
	for _, s := range legit {
		if s.Label != "legit" {
			t.Errorf("legitimate.jsonl holds a %q sample", s.Label)
		}
		langs[s.Lang]++
		kinds[s.Kind]++
		if strings.Contains(s.Message, "http") || strings.Contains(s.Message, "/") {
			links++
		}
		switch n := len([]rune(s.Message)); {
		case n < 40:
			short++
		case n > 400:
			long++
		}
	}
	for _, lang := range []string{"en", "fa", "de", "es", "zh", "mixed"} {
		if langs[lang] < 3 {
			t.Errorf("%d legitimate samples in %q, want at least 3", langs[lang], lang)
		}
	}
	if kinds["recruiter"] < 30 || len(kinds) < 5 {
		t.Errorf("legitimate kinds %v: want recruiters and others", kinds)
	}
	if links < 10 || short < 3 || long < 3 {
		t.Errorf("legitimate: %d with links, %d short, %d long; want some of each", links, short, long)
	}
	spamKinds := map[string]int{}
	for _, s := range spam {
		if s.Label != "spam" {
			t.Errorf("spam.jsonl holds a %q sample", s.Label)
		}
		spamKinds[s.Kind]++
	}
	for _, k := range []string{Gibberish, Automation, RepeatedMessage, MixedScript, ShortenedLink, DisposableEmail} {
		if spamKinds[k] < 3 {
			t.Errorf("%d spam samples of kind %q, want at least 3", spamKinds[k], k)
		}
	}
}

// TestCorpusNoFalsePositives: no legitimate introduction is likely spam.
func TestCorpusNoFalsePositives(t *testing.T) {
	for _, j := range judgeCorpus(t) {
		if j.Label == "legit" && Likely(j.signals) {
			t.Errorf("legitimate %s (%s) is likely spam: %v", j.Name, j.Lang, j.signals)
		}
	}
}

var figuresOnce sync.Once

// BenchmarkCorpus prints the precision and recall of likelySpam on the
// corpus, and the recall of each kind of spam (make bench).
func BenchmarkCorpus(b *testing.B) {
	var all []judged
	for range b.N {
		all = judgeCorpus(b)
	}
	b.StopTimer()
	figuresOnce.Do(func() {
		var tp, fp, fn, tn int
		byKind := map[string][2]int{}
		for _, j := range all {
			likely := Likely(j.signals)
			switch {
			case j.Label == "spam" && likely:
				tp++
			case j.Label == "spam":
				fn++
			case likely:
				fp++
			default:
				tn++
			}
			if j.Label == "spam" {
				k := byKind[j.Kind]
				k[1]++
				if likely {
					k[0]++
				}
				byKind[j.Kind] = k
			}
		}
		fmt.Printf("spam signals: %d legitimate, %d spam: precision %.3f, recall %.3f (true positives %d, false positives %d, false negatives %d)\n",
			tn+fp, tp+fn, float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1)), tp, fp, fn)
		kinds := make([]string, 0, len(byKind))
		for k := range byKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			fmt.Printf("spam signals: kind %-17s recall %2d/%2d\n", k, byKind[k][0], byKind[k][1])
		}
	})
}
