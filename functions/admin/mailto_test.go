package admin_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var replyTo = regexp.MustCompile(`Reply to <a href="([^"]*)"`)

// TestReplyToLinkNamesOnlyTheRecipient: whatever an address kept holds
// (one kept before the email rule refused ? and %, say), the detail page's
// Reply-to link is a mailto: whose recipient is exactly that address, with
// no header fields (cc, bcc, body), no fragment and no second recipient.
func TestReplyToLinkNamesOnlyTheRecipient(t *testing.T) {
	f := newFixture(t)
	for i, address := range []string{
		"ada@analytical-engines.example",
		"x?cc=spy%40evil.example&body=Please%20wire%20the%20money@example.com",
		"x?bcc=spy@evil.example",
		"ada#frag@example.com",
		"ada,eve@example.com",
		"ada%2Ceve@example.com",
		"jürgen+jobs@bücher.example",
	} {
		id := f.keep(sample("Visitor", address, now.Add(-time.Duration(i)*time.Minute)))
		page := f.do(http.MethodGet, "/admin/introductions/"+id, "")
		if page.status != http.StatusOK {
			t.Fatalf("%q: %d", address, page.status)
		}
		m := replyTo.FindSubmatch(page.body)
		if m == nil {
			t.Fatalf("%q: no Reply-to link", address)
		}
		href := html.UnescapeString(string(m[1]))
		u, err := url.Parse(href)
		if err != nil {
			t.Fatalf("%q: the link %q does not parse: %v", address, href, err)
		}
		to, err := url.PathUnescape(u.Opaque)
		if u.Scheme != "mailto" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || err != nil || to != address || strings.Contains(u.Opaque, ",") {
			t.Errorf("%q: the link %q is to %q with query %q and fragment %q, want exactly the address and nothing else (one recipient: no literal comma)", address, href, to, u.RawQuery, u.Fragment)
		}
	}
}
