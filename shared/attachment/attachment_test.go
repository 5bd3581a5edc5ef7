package attachment_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/storagetest"
	"github.com/ownersite/introductions/shared/testsupport"
)

const limit = 64 << 10

// TestReceive sends each kind of file to a bucket on fake-gcs-server and
// reads the bucket back through the emulator's own API: what passes is
// kept as sent, under its type; what is refused answers its code and
// leaves no object at all.
func TestReceive(t *testing.T) {
	files, bucket := storagetest.Bucket(t)
	pngBytes, jpegBytes, pdf := testsupport.SamplePNG(), testsupport.SampleJPEG(), testsupport.SamplePDF(2000)
	cases := []struct {
		name, declared string
		body           []byte
		code           intake.Code
		split          int // where the body's reader ends a chunk, if > 0
	}{
		{"pdf", "application/pdf", pdf, "", 0},
		{"png", "image/png", pngBytes, "", 0},
		{"jpeg", "image/jpeg", jpegBytes, "", 0},
		{"text", "text/plain; charset=utf-8", []byte("A job description.\nRole: engineer — Zürich, 80–100 %.\n"), "", 0},
		{"text without charset", "text/plain", []byte("plain words"), "", 0},
		{"at the limit", "application/pdf", atTheLimit(), "", 0},
		{"pdf renamed png", "image/png", pdf, intake.CodeAttachmentTypeRefused, 0},
		{"png declared jpeg", "image/jpeg", pngBytes, intake.CodeAttachmentTypeRefused, 0},
		{"html as text", "text/plain", []byte("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"), intake.CodeAttachmentTypeRefused, 0},
		{"html deep in text", "text/plain", append(bytes.Repeat([]byte("harmless line\n"), 3000), []byte("<ScRiPt>alert(1)</script>")...), intake.CodeAttachmentTypeRefused, 0},
		{"video past the head", "text/plain", append(lines(2000), `<video src=x onerror="alert(1)">`...), intake.CodeAttachmentTypeRefused, 0},
		{"details across a chunk", "text/plain", append(lines(40000), `<details open ontoggle="alert(1)">`...), intake.CodeAttachmentTypeRefused, 40001},
		{"an end tag across a chunk", "text/plain", append(lines(5000), "</p>"...), intake.CodeAttachmentTypeRefused, 5001},
		{"a comment past the head", "text/plain", append(lines(5000), "<!-- -->"...), intake.CodeAttachmentTypeRefused, 0},
		{"an xml declaration past the head", "text/plain", append(lines(5000), "<?xml ?>"...), intake.CodeAttachmentTypeRefused, 0},
		{"a tag unknown to any list", "text/plain", append(lines(5000), "<x) onfocus=alert(1) autofocus tabindex=1>"...), intake.CodeAttachmentTypeRefused, 0},
		{"less-than in words", "text/plain", append(lines(5000), "<3 and a < b, b <= c, 1<2, x <- y, <<>>, <@me> <\n <"...), "", 5001},
		{"text that begins as a bitmap's magic", "text/plain", []byte("BMW Group: an engineer in Munich.\n"), "", 0},
		{"text that begins as a pdf's magic", "text/plain", []byte("%PDF-1.7 is the version we read.\n"), "", 0},
		{"svg as text", "text/plain", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), intake.CodeAttachmentTypeRefused, 0},
		{"binary as text", "text/plain", []byte("text\x00with a NUL"), intake.CodeAttachmentTypeRefused, 0},
		{"latin-1 as text", "text/plain", []byte("caf\xe9"), intake.CodeAttachmentTypeRefused, 0},
		{"text in utf-16", "text/plain; charset=utf-16", []byte("\xff\xfeh\x00i\x00"), intake.CodeAttachmentTypeRefused, 0},
		{"polyglot: png then zip", "image/png", append(append([]byte{}, pngBytes...), []byte("PK\x03\x04 an archive follows")...), intake.CodeAttachmentTypeRefused, 0},
		{"polyglot: jpeg with html in its head", "image/jpeg", append(append([]byte{}, jpegBytes[:20]...), append([]byte("<html><script>x</script>"), jpegBytes[20:]...)...), intake.CodeAttachmentTypeRefused, 0},
		{"polyglot: pdf then html", "application/pdf", append(append([]byte{}, pdf...), []byte("<html><script>x</script></html>")...), intake.CodeAttachmentTypeRefused, 0},
		{"cut short png", "image/png", pngBytes[:len(pngBytes)-12], intake.CodeAttachmentTypeRefused, 0},
		{"gif", "image/gif", []byte("GIF89a\x01\x00\x01\x00"), intake.CodeAttachmentTypeRefused, 0},
		{"html declared", "text/html", []byte("<p>hi</p>"), intake.CodeAttachmentTypeRefused, 0},
		{"no type", "", pdf, intake.CodeAttachmentTypeRefused, 0},
		{"empty", "application/pdf", nil, intake.CodeAttachmentEmpty, 0},
		{"over the limit", "application/pdf", testsupport.SamplePDF(limit), intake.CodeAttachmentTooLarge, 0},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			object := fmt.Sprint("case/", i)
			var body io.Reader = bytes.NewReader(c.body)
			if c.split > 0 {
				body = io.MultiReader(bytes.NewReader(c.body[:c.split]), bytes.NewReader(c.body[c.split:]))
			}
			got, err := attachment.Receive(context.Background(), files, object, c.declared, body, limit)
			if code := intake.CodeOf(err); code != c.code {
				t.Fatalf("code %q, want %q (%v)", code, c.code, err)
			}
			kept := find(storagetest.Objects(t, bucket), object)
			if c.code != "" {
				if kept != nil {
					t.Fatalf("refused, yet the bucket holds %s", object)
				}
				if d := intake.AsError(err).Detail; d == "" || strings.Contains(d, "%!") {
					t.Fatalf("detail %q", d)
				}
				return
			}
			sum := sha256.Sum256(c.body)
			if got.Size != int64(len(c.body)) || got.SHA256 != hex.EncodeToString(sum[:]) || !strings.HasPrefix(c.declared, got.Type) {
				t.Fatalf("received %+v for %d bytes declared %s", got, len(c.body), c.declared)
			}
			if kept == nil || kept.ContentType != got.Type {
				t.Fatalf("bucket holds %+v", kept)
			}
			r, err := files.Open(context.Background(), object)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			back, _ := io.ReadAll(r)
			if !bytes.Equal(back, c.body) {
				t.Fatal("the bytes read back differ")
			}
		})
	}
}

// lines is n bytes of plain text.
func lines(n int) []byte {
	return bytes.Repeat([]byte("harmless line\n"), n/14+1)[:n]
}

// endless is a body that never ends, counting what was read of it.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.read == 0 {
		n := copy(p, testsupport.SamplePDF(0))
		e.read += int64(n)
		return n, nil
	}
	for i := range p {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestReceiveStopsAtTheLimit: a body without end is read only to the
// limit and a buffer beyond it, then refused.
func TestReceiveStopsAtTheLimit(t *testing.T) {
	files, bucket := storagetest.Bucket(t)
	body := &endless{}
	_, err := attachment.Receive(context.Background(), files, "endless", "application/pdf", body, limit)
	if intake.CodeOf(err) != intake.CodeAttachmentTooLarge {
		t.Fatalf("got %v", err)
	}
	if body.read > limit+1+32<<10 {
		t.Fatalf("read %d bytes of an endless body, limit %d", body.read, limit)
	}
	if len(storagetest.Objects(t, bucket)) != 0 {
		t.Fatal("a refused body left an object")
	}
}

func TestDeleteUnder(t *testing.T) {
	files, bucket := storagetest.Bucket(t)
	for _, o := range []string{"a/1", "a/2", "ab/1", "b/1"} {
		if _, err := attachment.Receive(context.Background(), files, o, "text/plain", strings.NewReader("words"), limit); err != nil {
			t.Fatal(err)
		}
	}
	n, err := files.DeleteUnder(context.Background(), "a/")
	if err != nil || n != 2 {
		t.Fatalf("deleted %d, %v", n, err)
	}
	var left []string
	for _, o := range storagetest.Objects(t, bucket) {
		left = append(left, o.Name)
	}
	if strings.Join(left, ",") != "ab/1,b/1" {
		t.Fatalf("left %v", left)
	}
	if _, err := files.Open(context.Background(), "a/1"); intake.CodeOf(err) != intake.CodeNotFound {
		t.Fatalf("open of a deleted object: %v", err)
	}
}

func find(objects []storagetest.Object, name string) *storagetest.Object {
	for _, o := range objects {
		if o.Name == name {
			return &o
		}
	}
	return nil
}

func TestCleanName(t *testing.T) {
	long := strings.Repeat("é", 200) + ".pdf"
	cases := map[string]string{
		"cv.pdf":                          "cv.pdf",
		"../../etc/passwd":                "passwd",
		`C:\Users\me\job description.pdf`: "job description.pdf",
		"in\x00voi\x07ce\x1b.pdf":         "invoice.pdf",
		"harmless\u202egpj.exe":           "harmlessgpj.exe",
		"zero\u200bwidth\u2066.txt":       "zerowidth.txt",
		"  .hidden  ":                     "hidden",
		"tab\tseparated   name.txt":       "tab separated name.txt",
		"/":                               "",
		"\xff\xfebroken.txt":              "broken.txt",
		long:                              strings.Repeat("é", 116) + ".pdf",
		"رزومه.pdf":                       "رزومه.pdf",
		"رزومه‌ام.pdf":                    "رزومه‌ام.pdf", // the non-joiner is spelling
		"‌pdf‌.txt":                       "pdf.txt",      // not between two letters
		"cv‍‮.pdf":                        "cv.pdf",
		"ㅤ\u115f\uffa0cv.pdf":             "cv.pdf", // Hangul fillers
		"c\u034fv.pdf":                    "cv.pdf", // the combining grapheme joiner
		"cv\ufe01\ufe02\ufe03.pdf":        "cv.pdf", // selectors that follow no base spell bytes
		"\U0001F600\ufe0f.png":            "\U0001F600\ufe0f.png",
		"\u200c\u200cرزومه.pdf":           "رزومه.pdf",
		strings.Repeat("\u200c", 1<<20) + "cv.pdf": "", // a megabyte of joiners is cut, not cleaned rune by rune
		strings.Repeat("\u200c", 300) + "cv.pdf":   "cv.pdf",
	}
	for in, want := range cases {
		if got := attachment.CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
	for in := range cases {
		if got := attachment.CleanName(in); intake.CheckStorableAttachment("i", &intake.Attachment{Object: "i/x", Type: "application/pdf", Size: 1, SHA256: strings.Repeat("a", 64), Name: got}) != nil {
			t.Errorf("CleanName(%q) = %q, which the store refuses", in, got)
		}
	}
	if got := attachment.NameFrom(`attachment; filename*=UTF-8''%E2%80%AEcv%2F..%2Fx.pdf`); got != "x.pdf" {
		t.Errorf("NameFrom: %q", got)
	}
	if got := attachment.NameFrom(`attachment; filename="plain.txt"`); got != "plain.txt" {
		t.Errorf("NameFrom: %q", got)
	}
}

func TestSaveName(t *testing.T) {
	cases := []struct{ name, typ, want string }{
		{"cv.pdf", "application/pdf", "cv.pdf"},
		{"cv.PDF", "application/pdf", "cv.PDF"},
		{"cv.html", "application/pdf", "cv.pdf"},
		{"page.htm", "text/plain", "page.txt"},
		{"notes.svg", "text/plain", "notes.txt"},
		{"notes", "text/plain", "notes.txt"},
		{"photo.jpeg", "image/jpeg", "photo.jpeg"},
		{"photo.png.html", "image/png", "photo.png.png"},
		{"رزومه‌ام.pdf", "application/pdf", "رزومه‌ام.pdf"},
		{"", "image/jpeg", "attachment-abc.jpg"},
		{".html", "application/pdf", "attachment-abc.pdf"},
	}
	for _, c := range cases {
		if got := attachment.SaveName("abc", c.name, c.typ); got != c.want {
			t.Errorf("SaveName(%q, %s) = %q, want %q", c.name, c.typ, got, c.want)
		}
	}
}

// atTheLimit is a PDF of exactly limit bytes.
func atTheLimit() []byte {
	pdf := testsupport.SamplePDF(limit - len(testsupport.SamplePDF(0)))
	for len(pdf) > limit {
		pdf = testsupport.SamplePDF(limit - len(testsupport.SamplePDF(0)) - (len(pdf) - limit))
	}
	return pdf
}

// TestDeleteIntroductionOutlivesItsRequest deletes an introduction's
// objects on a context already cancelled, as a client that went away
// leaves it: the deletion still happens, and only that prefix goes.
func TestDeleteIntroductionOutlivesItsRequest(t *testing.T) {
	files, bucket := storagetest.Bucket(t)
	for _, o := range []string{"a/1", "a/2", "ab/1"} {
		if _, err := attachment.Receive(context.Background(), files, o, "text/plain", strings.NewReader("words"), limit); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n := attachment.DeleteIntroduction(ctx, files, slog.New(slog.DiscardHandler), "a"); n != 2 {
		t.Fatalf("deleted %d, want 2", n)
	}
	var left []string
	for _, o := range storagetest.Objects(t, bucket) {
		left = append(left, o.Name)
	}
	if strings.Join(left, ",") != "ab/1" {
		t.Fatalf("left %v", left)
	}
}
