import sys

from autograder.cli.main import main

sys.exit(main())
