#include "raid/member_table.hpp"

namespace rs::raid {

const char* member_state_name(MemberState s) {
  switch (s) {
    case MemberState::missing:
      return "missing";
    case MemberState::in_sync:
      return "active sync";
    case MemberState::recovering:
      return "recovering";
    case MemberState::faulty:
      return "faulty";
  }
  return "?";
}

bool Member::rotational() const {
  if (model) return model->rotational();
  return dev && dev->info().rotational;
}

uint32_t Member::io_opt() const {
  if (model) return model->io_opt();
  return dev ? dev->info().io_opt : 0;
}

int MemberTable::count(MemberState s) const {
  int n = 0;
  for (const auto& m : members) n += m.present() && m.state == s;
  return n;
}

}  // namespace rs::raid
