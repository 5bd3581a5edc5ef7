package textrules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// CountLinks returns how many links s holds, read as a browser would (linkText: NFKC,
// invisible characters removed, the full stops browsers accept and defanged "[.]", "(.)",
// "[:]" as "." and ":", a backslash as a slash, lower case). A link is a scheme of two or more
// letters, ":" and slashes ("hxxp://" too); a scheme-relative "//host.tld"; "www." at a word's
// start; or a bare domain with a path ("example.com/page"). Each starts where it cannot
// continue a host, address or path, so "https://www.example.com" is one link. A bare domain
// without a path is none.
func CountLinks(s string) int {
	n := 0
	eachLink(linkText(s), func(string) { n++ })
	return n
}

// LinkHosts returns the host of each link CountLinks counts in s, in order, as it reads them.
func LinkHosts(s string) []string {
	var hosts []string
	eachLink(linkText(s), func(host string) { hosts = append(hosts, host) })
	return hosts
}

// eachLink calls found with the host of each link of t, a linkText.
func eachLink(t string, found func(host string)) {
	for i := 0; i < len(t); {
		prev := rune(-1)
		if i > 0 {
			prev, _ = utf8.DecodeLastRuneInString(t[:i])
		}
		end, hostStart := 0, i
		switch {
		case !continues(prev, "+-.") && schemeLink(t, i) > 0:
			end = schemeLink(t, i)
			hostStart = end
		case !continues(prev, ":/") && schemeRelativeLink(t, i) > 0:
			end = schemeRelativeLink(t, i)
			hostStart = i + 2
		case !continues(prev, ".-_/@") && strings.HasPrefix(t[i:], "www."):
			end = i + len("www.")
		case !continues(prev, ".-_/@") && domainWithPath(t, i) > 0:
			end = domainWithPath(t, i)
		}
		if end > 0 {
			hostEnd := domain(t, hostStart)
			if hostEnd == 0 {
				hostEnd = hostStart + strings.IndexFunc(t[hostStart:]+" ", func(r rune) bool {
					return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-')
				})
			}
			found(t[hostStart:hostEnd])
			i = end
			continue
		}
		i++
	}
}

// linkText is the text links are counted on (see CountLinks).
func linkText(s string) string {
	s = norm.NFKC.String(strings.Map(DropInvisible, s))
	s = strings.Map(func(r rune) rune {
		switch {
		case IsInvisible(r) || IsTag(r):
			return -1
		case r == '\u3002' || r == '\uFF0E' || r == '\uFF61':
			return '.'
		case r == '\\':
			return '/'
		}
		return unicode.ToLower(r)
	}, s)
	return defanged.Replace(s)
}

// DropInvisible is a strings.Map function removing invisible and tag characters.
func DropInvisible(r rune) rune {
	if IsInvisible(r) || IsTag(r) {
		return -1
	}
	return r
}

// defanged reads the usual "defanged" spellings of a link as the link.
var defanged = strings.NewReplacer("[.]", ".", "(.)", ".", "{.}", ".", "[dot]", ".", "(dot)", ".", "[:]", ":", "[://]", "://")

// continues reports whether a link cannot start after prev (prev < 0: the text's start).
func continues(prev rune, also string) bool {
	return prev >= 0 && (unicode.IsLetter(prev) || unicode.IsDigit(prev) || strings.ContainsRune(also, prev))
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isHostStart(t string, i int) bool {
	if i >= len(t) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// schemeLink returns the end of "scheme:/" + host start at i, or 0.
func schemeLink(t string, i int) int {
	if t[i] < 'a' || t[i] > 'z' {
		return 0
	}
	j := i + 1
	for j < len(t) && isSchemeByte(t[j]) {
		j++
	}
	if j-i < 2 || j >= len(t) || t[j] != ':' {
		return 0
	}
	k := j + 1
	for k < len(t) && t[k] == '/' {
		k++
	}
	if k == j+1 || !isHostStart(t, k) {
		return 0
	}
	return k
}

// schemeRelativeLink returns the end of "//host.tld" at i, or 0.
func schemeRelativeLink(t string, i int) int {
	if !strings.HasPrefix(t[i:], "//") {
		return 0
	}
	if end := domain(t, i+2); end > 0 {
		return end
	}
	return 0
}

// domainWithPath returns the end of "host.tld/" at i, or 0.
func domainWithPath(t string, i int) int {
	end := domain(t, i)
	if end == 0 || end >= len(t) || t[end] != '/' {
		return 0
	}
	return end + 1
}

// domain returns the end of a dotted host name starting at i, or 0.
func domain(t string, i int) int {
	labels, lastLetters, lastLen := 0, true, 0
	j := i
	for {
		start := j
		letters := true
		for j < len(t) {
			r, size := utf8.DecodeRuneInString(t[j:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || (r == '-' && j > start)) {
				break
			}
			if !unicode.IsLetter(r) {
				letters = false
			}
			j += size
		}
		if j == start {
			break
		}
		labels++
		lastLetters, lastLen = letters, utf8.RuneCountInString(t[start:j])
		if j+1 < len(t) && t[j] == '.' && isHostStart(t, j+1) {
			j++
			continue
		}
		break
	}
	if labels < 2 || !lastLetters || lastLen < 2 {
		return 0
	}
	return j
}
