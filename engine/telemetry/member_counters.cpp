#include "telemetry/member_counters.hpp"
