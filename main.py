from mobile_ui.__main__ import main

raise SystemExit(main())
