package spamsignals

import (
	"slices"
	"testing"

	"github.com/ownersite/introductions/shared/intake"
)

func TestOf(t *testing.T) {
	page := func(fill int64, automation bool) intake.PageReport {
		return intake.PageReport{Reported: true, FillMillis: fill, Automation: automation}
	}
	plain := intake.Fields{Name: "Ada Lovelace", Company: "Analytical Engines", Email: "ada@example.com", Message: "Hello, I would like to talk about a role."}
	with := func(f func(*intake.Submission)) intake.Submission {
		s := intake.Submission{Fields: plain, Page: page(30000, false)}
		f(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		sub  intake.Submission
		want []string
	}{
		{"plain", with(func(*intake.Submission) {}), nil},
		{"no report is no signal", with(func(s *intake.Submission) { s.Page = intake.PageReport{} }), nil},
		{"random case name", with(func(s *intake.Submission) { s.Fields.Name = "RDtKhNcVxyz" }), []string{Gibberish}},
		{"no vowel company", with(func(s *intake.Submission) { s.Fields.Company = "Xkcdqw" }), []string{Gibberish}},
		{"keyboard mash message", with(func(s *intake.Submission) { s.Fields.Message = "asdfghjkl" }), []string{Gibberish}},
		{"brands are no gibberish", with(func(s *intake.Submission) { s.Fields.Company = "McKinsey LinkedIn GitHub DeepMind" }), nil},
		{"German compounds are no gibberish", with(func(s *intake.Submission) {
			s.Fields.Message = "Angstschweiß und Herbststurm in der Pflichtschulabschlussprüfung"
		}), nil},
		{"a random link path is no gibberish", with(func(s *intake.Submission) { s.Fields.Message = "see youtu.be/dQwXkPqRzTv" }), nil},
		{"filled fast", with(func(s *intake.Submission) { s.Page = page(2999, false) }), []string{FilledFast}},
		{"three seconds is not fast", with(func(s *intake.Submission) { s.Page = page(3000, false) }), nil},
		{"automation", with(func(s *intake.Submission) { s.Page = page(30000, true) }), []string{Automation}},
		{"Cyrillic a in a Latin word", with(func(s *intake.Submission) { s.Fields.Company = "Pаypal" }), []string{MixedScript}},
		{"Greek omicron", with(func(s *intake.Submission) { s.Fields.Role = "Recruitοr" }), []string{MixedScript}},
		{"Russian and English words", with(func(s *intake.Submission) { s.Fields.Message = "Привет, hello friend, как дела?" }), nil},
		{"Chinese with a Latin name", with(func(s *intake.Submission) { s.Fields.Message = "我在Google工作，想和你聊聊Go语言。" }), nil},
		{"shortened link", with(func(s *intake.Submission) { s.Fields.Message = "details: https://bit.ly/abc" }), []string{ShortenedLink}},
		{"shortened bare link in the conversation", with(func(s *intake.Submission) { s.Conversation = "go to tinyurl.com/x" }), []string{ShortenedLink}},
		{"a shortener's subdomain", with(func(s *intake.Submission) { s.Fields.Message = "https://go.rebrand.ly/x" }), []string{ShortenedLink}},
		{"a site's own short name is no shortener", with(func(s *intake.Submission) { s.Fields.Message = "https://lnkd.in/abc and https://youtu.be/x" }), nil},
		{"disposable", with(func(s *intake.Submission) { s.Fields.Email = "x@Mailinator.com" }), []string{DisposableEmail}},
		{"disposable subdomain", with(func(s *intake.Submission) { s.Fields.Email = "x@eu.mailinator.com" }), []string{DisposableEmail}},
		{"gmail is not disposable", with(func(s *intake.Submission) { s.Fields.Email = "x@gmail.com" }), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.sub); !slices.Equal(got, tc.want) {
				t.Errorf("Of = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLikely(t *testing.T) {
	for _, tc := range []struct {
		signals []string
		want    bool
	}{
		{nil, false},
		{[]string{"honeypot-filled", "POW_SPENT"}, false},
		{[]string{Automation}, true},
		{[]string{RepeatedMessage}, true},
		{[]string{MixedScript}, true},
		{[]string{Gibberish}, false},
		{[]string{DisposableEmail}, false},
		{[]string{FilledFast}, false},
		{[]string{ShortenedLink}, false},
		{[]string{FilledFast, ShortenedLink}, true},
		{[]string{DisposableEmail, ShortenedLink}, true},
		{[]string{Gibberish, FilledFast}, true},
	} {
		if got := Likely(tc.signals); got != tc.want {
			t.Errorf("Likely(%v) = %v, want %v", tc.signals, got, tc.want)
		}
	}
}

func TestRepeatKey(t *testing.T) {
	a := RepeatKey("Hello, we offer web design at 50% off! Reply today for a free quote.")
	b := RepeatKey("hello we offer WEB design at 70 % off reply today for a free quote")
	if a == "" || a != b {
		t.Errorf("RepeatKey differs for the same words: %q, %q", a, b)
	}
	if k := RepeatKey("Hi there, open to roles?"); k != "" {
		t.Errorf("a short message has key %q, want none", k)
	}
}
