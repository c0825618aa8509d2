// Package notified carries PostgreSQL notifications to an instance: a Subscription
// keeps a dedicated connection listening, through database restarts, and hands each
// notification over. It also keeps in-process caches of database rows true across
// instances: a row that changes sends a notification when its transaction commits,
// and every instance's subscription hands it to its Cache. A cache answers only while
// its subscription is up, and starts empty each time it comes up, so a change it
// could have missed never outlives a read from the database.
package notified
