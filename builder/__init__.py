"""Course build machinery: execute the lesson notebooks with papermill and publish them to build/."""
