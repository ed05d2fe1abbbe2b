/* REPL: to be written. */
