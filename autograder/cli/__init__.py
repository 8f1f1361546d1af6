"""The command line: one module per subcommand (`autograder --help`)."""
