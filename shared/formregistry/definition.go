package formregistry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
)

// ProofOfWorkParams are the proof-of-work settings the page needs.
type ProofOfWorkParams struct {
	Algorithm     string `json:"algorithm"`
	MaxNumber     int64  `json:"maxNumber"`
	ChallengePath string `json:"challengePath"`
}

// Honeypot names the field people never see.
type Honeypot struct {
	Name string `json:"name"`
}

// Notice is the privacy notice of a version under given retention settings.
type Notice struct {
	Title    string          `json:"title"`
	Sections []NoticeSection `json:"sections"`
}

// RetentionDefinition is the retention the page states, in whole units rounded down.
type RetentionDefinition struct {
	DraftMinutes        int64 `json:"draftMinutes"`
	IntroductionDays    int64 `json:"introductionDays"`
	RejectedAttemptDays int64 `json:"rejectedAttemptDays"`
}

// AttachmentDefinition is the attachment a version offers, with the service's limits.
type AttachmentDefinition struct {
	Attachment
	MaxBytes int64    `json:"maxBytes"`
	Types    []string `json:"types"`
	// TypeNames names each of Types in the definition's language.
	TypeNames map[string]string `json:"typeNames"`
}

// Limits are the service's settings a definition and its notice state.
type Limits struct {
	Retention          intake.Retention
	Destinations       []intake.Destination
	AttachmentMaxBytes int64  // ATTACHMENT_MAX_BYTES
	SiteURL            string // SITE_URL: where the page's receipt and withdrawal lead back
}

// Definition is the form definition the page is served; its JSON shape is a contract with the page.
type Definition struct {
	FormID      string `json:"formId"`
	FormVersion string `json:"formVersion"`
	// Lang and Dir are the texts' language and direction; Languages are all the version's.
	Lang        string                `json:"lang"`
	Dir         string                `json:"dir"`
	Languages   []LanguageChoice      `json:"languages"`
	Title       string                `json:"title"`
	Description string                `json:"description"`
	Fields      []Field               `json:"fields"`
	Honeypot    Honeypot              `json:"honeypot"`
	Purposes    []Purpose             `json:"purposes"`
	Attachment  *AttachmentDefinition `json:"attachment,omitempty"`
	Notice      Notice                `json:"notice"`
	ProofOfWork ProofOfWorkParams     `json:"proofOfWork"`
	Retention   RetentionDefinition   `json:"retention"`
	// Page and Problems are the page's sentences in Lang (see Language).
	Page     map[string]string `json:"page"`
	Problems map[string]string `json:"problems"`
	SiteURL  string            `json:"siteUrl,omitempty"`
}

// LanguageChoice is one language a version is shown in, named in itself.
type LanguageChoice struct {
	Lang string `json:"lang"`
	Name string `json:"name"`
	Dir  string `json:"dir"`
}

// Definition returns the version's form definition under pow and limits;
// it shares nothing mutable with the registry.
func (v *Version) Definition(pow ProofOfWorkParams, limits Limits) Definition {
	retention := limits.Retention
	var att *AttachmentDefinition
	if v.Attachment != nil {
		names := make(map[string]string, len(attachment.Types))
		for _, t := range attachment.Types {
			names[t] = v.Language.Notice.AttachmentTypes[t]
		}
		att = &AttachmentDefinition{Attachment: *v.Attachment, MaxBytes: limits.AttachmentMaxBytes, Types: slices.Clone(attachment.Types), TypeNames: names}
	}
	purposes := make([]Purpose, len(v.Purposes))
	for i, p := range v.Purposes {
		purposes[i] = p
		if p.Consent != nil {
			c := *p.Consent
			purposes[i].Consent = &c
		}
	}
	var choices []LanguageChoice
	for _, l := range v.langs {
		t := v.inLang[l]
		choices = append(choices, LanguageChoice{Lang: l, Name: t.Language.Name, Dir: t.Language.Dir})
	}
	return Definition{
		FormID:      v.FormID,
		FormVersion: v.Version,
		Lang:        v.Lang,
		Dir:         v.Language.Dir,
		Languages:   choices,
		Title:       v.Title,
		Description: v.Description,
		Fields:      slices.Clone(v.Fields),
		Honeypot:    Honeypot{Name: v.Honeypot},
		Purposes:    purposes,
		Attachment:  att,
		Notice:      v.Notice(limits),
		ProofOfWork: pow,
		Retention: RetentionDefinition{
			DraftMinutes:        int64(retention.Draft / time.Minute),
			IntroductionDays:    int64(retention.Introduction / (24 * time.Hour)),
			RejectedAttemptDays: int64(retention.RejectedAttempt / (24 * time.Hour)),
		},
		Page:     maps.Clone(v.Language.Page),
		Problems: maps.Clone(v.Language.Problems),
		SiteURL:  limits.SiteURL,
	}
}

// The placeholders a notice template may use; a template uses each of requiredPlaceholders.
const (
	placeholderFields          = "{fields}"
	placeholderPurposes        = "{purposes}"
	placeholderDraft           = "{draftRetention}"
	placeholderIntroduction    = "{introductionRetention}"
	placeholderRejectedAttempt = "{rejectedAttemptRetention}"
	placeholderBackup          = "{backupRetention}"
	placeholderRecipients      = "{recipients}"
	placeholderWithdrawalReach = "{withdrawalReach}"
	placeholderAttachment      = "{attachmentRules}"
)

var (
	requiredPlaceholders = []string{placeholderFields, placeholderPurposes, placeholderDraft, placeholderIntroduction, placeholderRejectedAttempt}
	placeholders         = append(slices.Clone(requiredPlaceholders), placeholderBackup, placeholderRecipients, placeholderWithdrawalReach, placeholderAttachment)
	placeholderPattern   = regexp.MustCompile(`\{[^{}\s]*\}`)
)

// Notice returns the version's privacy notice: its template filled in under limits.
func (v *Version) Notice(limits Limits) Notice {
	retention, destinations := limits.Retention, limits.Destinations
	w := v.Language.Notice
	var fields []string
	for _, f := range v.Fields {
		switch {
		case f.Purpose != "":
			fields = append(fields, strings.ReplaceAll(w.FieldWithConsent, "{label}", f.Label))
		case !f.Required:
			fields = append(fields, strings.ReplaceAll(w.FieldOptional, "{label}", f.Label))
		default:
			fields = append(fields, f.Label)
		}
	}
	var purposes []string
	for _, p := range v.Purposes {
		need := w.Optional
		if p.Required {
			need = w.Required
		}
		purposes = append(purposes, strings.NewReplacer("{description}", p.Description, "{need}", need, "{basis}", w.Bases[p.Basis]).Replace(w.Purpose))
	}
	var recipients, reach []string
	for _, d := range destinations {
		recipients = append(recipients, w.Recipients[d])
		if s := w.Withdrawal[d]; s != "" {
			reach = append(reach, s)
		}
	}
	var attachmentRules string
	if v.Attachment != nil {
		attachmentRules = v.Language.attachmentRules(limits.AttachmentMaxBytes)
	}
	duration := v.Language.humanDuration
	fill := strings.NewReplacer(
		placeholderAttachment, attachmentRules,
		placeholderRecipients, v.Language.join(recipients, v.Language.Notice.ListLast),
		placeholderWithdrawalReach, strings.Join(reach, " "),
		placeholderBackup, duration(intake.PointInTimeRecoveryWindow),
		placeholderFields, strings.Join(fields, w.FieldSeparator),
		placeholderPurposes, strings.Join(purposes, "\n"),
		placeholderDraft, duration(retention.Draft),
		placeholderIntroduction, duration(retention.Introduction),
		placeholderRejectedAttempt, duration(retention.RejectedAttempt),
	)
	n := Notice{Title: v.NoticeTemplate.Title}
	for _, s := range v.NoticeTemplate.Sections {
		n.Sections = append(n.Sections, NoticeSection{Heading: s.Heading, Body: strings.TrimSpace(fill.Replace(s.Body))})
	}
	return n
}

// humanDuration states d in the largest whole unit (days, hours, minutes).
func (l *Language) humanDuration(d time.Duration) string {
	switch {
	case d > 0 && d%(24*time.Hour) == 0:
		return l.duration(int64(d/(24*time.Hour)), "day")
	case d > 0 && d%time.Hour == 0:
		return l.duration(int64(d/time.Hour), "hour")
	case d > 0 && d%time.Minute == 0:
		return l.duration(int64(d/time.Minute), "minute")
	default:
		return d.String()
	}
}

// checkNotice validates a notice template and computes its SHA256.
func checkNotice(t *NoticeTemplate) []error {
	var problems []error
	if strings.TrimSpace(t.TextVersion) == "" || strings.TrimSpace(t.Title) == "" {
		problems = append(problems, errors.New("textVersion and title are required"))
	}
	if len(t.Sections) == 0 {
		problems = append(problems, errors.New("no sections"))
	}
	if placeholderPattern.MatchString(t.Title) {
		problems = append(problems, errors.New("the title cannot hold a placeholder"))
	}
	used := map[string]bool{}
	for i, s := range t.Sections {
		if placeholderPattern.MatchString(s.Heading) {
			problems = append(problems, fmt.Errorf("section %d: a heading cannot hold a placeholder", i))
		}
		if strings.TrimSpace(s.Heading) == "" || strings.TrimSpace(s.Body) == "" {
			problems = append(problems, fmt.Errorf("section %d: heading and body are required", i))
		}
		for _, p := range placeholderPattern.FindAllString(s.Body, -1) {
			if !slices.Contains(placeholders, p) {
				problems = append(problems, fmt.Errorf("section %d: unknown placeholder %s", i, p))
			}
			used[p] = true
		}
	}
	for _, p := range requiredPlaceholders {
		if !used[p] {
			problems = append(problems, fmt.Errorf("placeholder %s is never used", p))
		}
	}
	canonical, err := json.Marshal(t)
	if err != nil {
		problems = append(problems, err)
	}
	sum := sha256.Sum256(canonical)
	t.SHA256 = hex.EncodeToString(sum[:])
	return problems
}

// sortedVersions returns the version numbers of a form, oldest first.
func sortedVersions(versions map[string]*Version) []string {
	return slices.SortedFunc(maps.Keys(versions), func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
}
