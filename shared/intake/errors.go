package intake

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable, documented problem code.
type Code string

// The documented problem codes (functions/README.md); field codes appear in
// Error.Fields.
const (
	CodeUnreadableBody       Code = "UNREADABLE_BODY"
	CodeUnsupportedMediaType Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeBodyTooLarge         Code = "BODY_TOO_LARGE"
	CodeNameInvalid          Code = "NAME_INVALID"
	CodeCompanyInvalid       Code = "COMPANY_INVALID"
	CodeRoleInvalid          Code = "ROLE_INVALID"
	CodeEmailInvalid         Code = "EMAIL_INVALID"
	CodeMessageInvalid       Code = "MESSAGE_INVALID"
	CodeMessageTooManyLinks  Code = "MESSAGE_TOO_MANY_LINKS"
	// CodeFieldInvalid is the code of a field a form version adds.
	CodeFieldInvalid          Code = "FIELD_INVALID"
	CodeConversationInvalid   Code = "CONVERSATION_INVALID"
	CodeConversationTooLong   Code = "CONVERSATION_TOO_LONG"
	CodeConversationManyLinks Code = "CONVERSATION_TOO_MANY_LINKS"
	CodeFormVersionUnknown    Code = "FORM_VERSION_UNKNOWN"
	CodeConsentRequired       Code = "CONSENT_REQUIRED"
	CodePowRequired           Code = "POW_REQUIRED"
	CodePowInvalid            Code = "POW_INVALID"
	CodePowExpired            Code = "POW_EXPIRED"
	CodePowSpent              Code = "POW_SPENT"
	CodePowTooEasy            Code = "POW_TOO_EASY"
	CodeRateLimited           Code = "RATE_LIMITED"
	CodeIdempotencyKeyInvalid Code = "IDEMPOTENCY_KEY_INVALID"
	CodeIdempotencyKeyReused  Code = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyInFlight   Code = "IDEMPOTENCY_IN_FLIGHT"
	CodeNotFound              Code = "NOT_FOUND"
	CodeStateConflict         Code = "STATE_CONFLICT"
	CodeMethodNotAllowed      Code = "METHOD_NOT_ALLOWED"
	CodeCursorInvalid         Code = "CURSOR_INVALID"
	CodeFilterInvalid         Code = "FILTER_INVALID"
	CodeDateRangeInvalid      Code = "DATE_RANGE_INVALID"
	CodeCrossOriginRefused    Code = "CROSS_ORIGIN_REFUSED"
	CodeHostNotServed         Code = "HOST_NOT_SERVED" // the dev server's, to a Host not among its loopback names
	CodeUnavailable           Code = "UNAVAILABLE"
	CodeInternal              Code = "INTERNAL"
	// The delivery events entry point's refusals: nothing changes.
	CodeEventSignatureInvalid Code = "EVENT_SIGNATURE_INVALID"
	CodeEventStale            Code = "EVENT_STALE"
	CodeEventReplayed         Code = "EVENT_REPLAYED"
	// The attachment's refusals: nothing is stored.
	CodeAttachmentTooLarge    Code = "ATTACHMENT_TOO_LARGE"
	CodeAttachmentTypeRefused Code = "ATTACHMENT_TYPE_REFUSED"
	CodeAttachmentEmpty       Code = "ATTACHMENT_EMPTY"
	CodeAttachmentNotOffered  Code = "ATTACHMENT_NOT_OFFERED"
)

// FieldError names one body field (or parameter) that failed a rule.
type FieldError struct {
	Field  string `json:"field"`
	Code   Code   `json:"code"`
	Detail string `json:"detail"`
}

// Error is the one error type that crosses the domain boundary: Code and Detail are the
// client's, Cause is logged, never sent.
type Error struct {
	Code       Code
	Detail     string
	Fields     []FieldError
	RetryAfter time.Duration
	// RequiredMaxNumber is, on POW_TOO_EASY, the max number the source owes.
	RequiredMaxNumber int64
	Cause             error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Detail, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Detail)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with a client-safe detail.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Invalid returns a validation error with the code of its first field error; INTERNAL
// without one.
func Invalid(fields ...FieldError) *Error {
	if len(fields) == 0 {
		return Internal(errors.New("intake.Invalid without a field error"))
	}
	return &Error{Code: fields[0].Code, Detail: "The introduction was not kept: see errors.", Fields: fields}
}

// Unavailable wraps an outage as a retryable refusal.
func Unavailable(cause error, retryAfter time.Duration) *Error {
	return &Error{Code: CodeUnavailable, Detail: "The service is briefly unavailable; please try again.", RetryAfter: retryAfter, Cause: cause}
}

// Internal wraps an unexpected cause; the client sees only the code.
func Internal(cause error) *Error {
	return &Error{Code: CodeInternal, Detail: "Something went wrong on our side.", Cause: cause}
}

// ErrNotFound answers an unknown id, an expired draft and a wrong token alike.
var ErrNotFound = &Error{Code: CodeNotFound, Detail: "No such introduction."}

// CodeOf returns err's Code, CodeInternal for another error, "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// AsError returns err as an *Error, wrapping foreign errors as Internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}
