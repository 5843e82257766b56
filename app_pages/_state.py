"""What the Diarization page still takes from here; everything else moved (_pages, _demos, _registry, _loaded,
_uploads, _tables, _messages)."""
from app_pages._demos import ASSETS  # noqa: F401
from app_pages._uploads import read_user_file  # noqa: F401
