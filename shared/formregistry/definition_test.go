package formregistry

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/intake"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}

var testPoW = ProofOfWorkParams{Algorithm: "SHA-256", MaxNumber: 100000, ChallengePath: "/api/introductions/challenge"}

// everyDestination is a deployment with email and webhook on.
var everyDestination = []intake.Destination{intake.DestinationInbox, intake.DestinationEmail, intake.DestinationWebhook}

// testLimits are the default retention, every destination and a 5 MiB
// attachment.
var testLimits = Limits{Retention: intake.DefaultRetention, Destinations: everyDestination, AttachmentMaxBytes: 5 << 20}

// goldenName is a golden file's name for a version in a language: the
// version file's language has no language suffix.
func goldenName(kind string, v *Version, ext string) string {
	if v.Lang == DefaultLang {
		return kind + "-" + v.FormID + "-" + v.Version + ext
	}
	return kind + "-" + v.FormID + "-" + v.Version + "." + v.Lang + ext
}

func TestDefinitionGolden(t *testing.T) {
	for _, n := range []string{"1", "2", "3"} {
		base, _ := loadEmbedded(t).Find("introduction", n)
		for _, lang := range base.Langs() {
			v, _ := base.In(lang)
			got, err := json.MarshalIndent(v.Definition(testPoW, testLimits), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, goldenName("definition", v, ".golden.json"), append(got, '\n'))
		}
	}
}

func TestNoticeGolden(t *testing.T) {
	for _, n := range []string{"1", "2", "3"} {
		base, _ := loadEmbedded(t).Find("introduction", n)
		for _, lang := range base.Langs() {
			v, _ := base.In(lang)
			golden(t, goldenName("notice", v, ".golden.txt"), []byte(v.Notice(testLimits).text()))
		}
	}
}

// TestNoticeNamesEveryDestinationAndRetentionClass proves the newest notice
// is generated from the configured destinations and the retention
// settings: it names each destination that is on, and no other, and states
// each retention class, backups included.
func TestNoticeNamesEveryDestinationAndRetentionClass(t *testing.T) {
	v, _ := loadEmbedded(t).Latest("introduction")
	retention := intake.Retention{Draft: 45 * time.Minute, Introduction: 90 * 24 * time.Hour, RejectedAttempt: 14 * 24 * time.Hour}
	classes := map[string]string{
		"draft":            "after 45 minutes",
		"introduction":     "90 days after you confirm",
		"rejected attempt": "kept for 14 days",
		"backups":          "backups (point-in-time recovery) keep a copy of each record for 7 days",
	}
	configs := [][]intake.Destination{
		{intake.DestinationInbox},
		{intake.DestinationInbox, intake.DestinationEmail},
		{intake.DestinationInbox, intake.DestinationWebhook},
		everyDestination,
	}
	for _, on := range configs {
		text := v.Notice(Limits{Retention: retention, Destinations: on, AttachmentMaxBytes: 5 << 20}).text()
		for class, want := range classes {
			if !strings.Contains(text, want) {
				t.Errorf("with %v the notice does not state the %s retention (%q):\n%s", on, class, want, text)
			}
		}
		for _, d := range everyDestination {
			if named := strings.Contains(text, v.Language.Notice.Recipients[d]); named != slices.Contains(on, d) {
				t.Errorf("with %v the notice names %s: %v\n%s", on, d, named, text)
			}
		}
		if strings.Contains(text, "chat") {
			t.Errorf("the notice promises a chat notification that does not exist:\n%s", text)
		}
		if strings.ContainsAny(text, "{}") {
			t.Errorf("unfilled placeholder:\n%s", text)
		}
	}
}

// TestDefinitionShape checks the keys of the served JSON against the shape
// the page is built on, independently of the golden file.
func TestDefinitionShape(t *testing.T) {
	v, _ := loadEmbedded(t).Latest("introduction")
	raw, _ := json.Marshal(v.Definition(testPoW, testLimits))
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	keys := func(m any) string {
		var ks []string
		for k := range m.(map[string]any) {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return strings.Join(ks, ",")
	}
	fields := d["fields"].([]any)
	purposes := d["purposes"].([]any)
	tests := []struct {
		name string
		got  any
		want string
	}{
		{"top level", d, "attachment,description,dir,fields,formId,formVersion,honeypot,lang,languages,notice,page,problems,proofOfWork,purposes,retention,title"},
		{"attachment", d["attachment"], "hint,label,maxBytes,purpose,typeNames,types"},
		{"field with autocomplete", fields[0], "autocomplete,code,hint,label,maxLength,maxLinks,name,required,type"},
		{"field bound to a purpose", fields[5], "code,hint,label,maxLength,maxLinks,name,purpose,required,type"},
		{"honeypot", d["honeypot"], "name"},
		{"purpose", purposes[0], "basis,description,id,required"},
		{"consent purpose", purposes[1], "basis,consent,description,id,required"},
		{"consent", purposes[1].(map[string]any)["consent"], "control,sha256,text,textVersion"},
		{"notice", d["notice"], "sections,title"},
		{"notice section", d["notice"].(map[string]any)["sections"].([]any)[0], "body,heading"},
		{"proof of work", d["proofOfWork"], "algorithm,challengePath,maxNumber"},
		{"retention", d["retention"], "draftMinutes,introductionDays,rejectedAttemptDays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys(tt.got); got != tt.want {
				t.Errorf("keys = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDefinitionDoesNotShareRegistryData(t *testing.T) {
	v, _ := loadEmbedded(t).Latest("introduction")
	d := v.Definition(testPoW, testLimits)
	d.Fields[0].MaxLength = 1
	d.Purposes[1].Consent.Text = "changed"
	if v.Fields[0].MaxLength == 1 || v.Purposes[1].Consent.Text == "changed" {
		t.Fatal("changing a Definition changed the registry")
	}
}

// TestNoticeFollowsRetention proves the notice is generated from the
// retention settings, not written beside them.
func TestNoticeFollowsRetention(t *testing.T) {
	v, _ := loadEmbedded(t).Latest("introduction")
	tests := []struct {
		name      string
		retention intake.Retention
		want      []string
		wantDef   RetentionDefinition
	}{
		{"defaults", intake.DefaultRetention, []string{"after 30 minutes", "180 days after you confirm", "kept for 30 days"}, RetentionDefinition{30, 180, 30}},
		{"other periods", intake.Retention{Draft: time.Hour, Introduction: 90 * 24 * time.Hour, RejectedAttempt: 24 * time.Hour},
			[]string{"after 1 hour", "90 days after you confirm", "kept for 1 day"}, RetentionDefinition{60, 90, 1}},
		{"odd periods", intake.Retention{Draft: 45 * time.Minute, Introduction: 36 * time.Hour, RejectedAttempt: 90 * time.Second},
			[]string{"after 45 minutes", "36 hours after you confirm", "kept for 1m30s"}, RetentionDefinition{45, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := v.Notice(Limits{Retention: tt.retention, Destinations: everyDestination, AttachmentMaxBytes: 5 << 20}).text()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("notice does not say %q:\n%s", w, text)
				}
			}
			if strings.ContainsAny(text, "{}") {
				t.Errorf("notice holds an unfilled placeholder:\n%s", text)
			}
			if got := v.Definition(testPoW, Limits{Retention: tt.retention, Destinations: everyDestination, AttachmentMaxBytes: 5 << 20}).Retention; got != tt.wantDef {
				t.Errorf("Definition retention = %+v, want %+v", got, tt.wantDef)
			}
		})
	}
}

// TestNoticeStatesEveryPurposeAndField proves the notice is generated from
// the version: each purpose with its basis, each field by its label.
func TestNoticeStatesEveryPurposeAndField(t *testing.T) {
	v, _ := loadEmbedded(t).Latest("introduction")
	text := v.Notice(testLimits).text()
	for _, p := range v.Purposes {
		if !strings.Contains(text, p.Description) || !strings.Contains(text, v.Language.Notice.Bases[p.Basis]) {
			t.Errorf("notice does not state purpose %q with its basis", p.ID)
		}
	}
	for _, f := range v.Fields {
		if !strings.Contains(text, f.Label) {
			t.Errorf("notice does not name field %q", f.Name)
		}
	}
}

// text renders the notice as plain text, its parts separated by blank lines.
func (n Notice) text() string {
	var b strings.Builder
	b.WriteString(n.Title + "\n")
	for _, s := range n.Sections {
		b.WriteString("\n" + s.Heading + "\n" + s.Body + "\n")
	}
	return b.String()
}
