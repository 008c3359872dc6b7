// Scheduling: schedule trigger evaluation; see issue 7.
