package pages

import "github.com/checkup-dev/checkup/db/locale"

// ErrorView is an error as a page shows it: the HTTP status and the sentence for people.
type ErrorView struct {
	Status  int
	Message string
}

// Heading names the kind of error in plain words; the sentence says the rest.
func (v ErrorView) Heading(l *locale.Localizer) string {
	switch {
	case v.Status == 404:
		return l.T("errors.heading_not_found")
	case v.Status == 403:
		return l.T("errors.heading_not_allowed")
	case v.Status == 413:
		return l.T("errors.heading_too_large")
	case v.Status >= 500:
		return l.T("errors.heading_internal")
	}
	return l.T("errors.heading_other")
}
