// A check box whose border reads in both colour schemes (Theme.fieldWindow).
import QtQuick
import QtQuick.Controls
import RaidScope

CheckBox {
    // Only Fusion's border is drawn from the window role here (the fill is
    // the base, the text the text role), so only the border changes.
    palette.window: Theme.fieldWindow(fieldPalette)
    SystemPalette { id: fieldPalette; colorGroup: SystemPalette.Active }
}
