package pages

// ErrorView is an error as a page shows it: the HTTP status and the sentence for people.
type ErrorView struct {
	Status  int
	Message string
}

// Heading names the kind of error in plain words; the sentence says the rest.
func (v ErrorView) Heading() string {
	switch {
	case v.Status == 404:
		return "Not found"
	case v.Status == 403:
		return "Not allowed"
	case v.Status == 413:
		return "Too large"
	case v.Status >= 500:
		return "Something went wrong"
	}
	return "That did not work"
}
