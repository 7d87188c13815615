// Where a parity array keeps what, stripe by stripe: one row per stripe
// (the first few), one column per member; a cell is the array's data chunk
// it holds (D0, D1, ...), P (parity) or Q (RAID6's second syndrome). The
// cells come from the engine's layout maps (StripeMap); nothing here knows
// a layout.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

Card {
    id: card
    property LiveSession session
    readonly property alias map: stripeMap
    title: qsTr("Stripe layout")
    subtitle: stripeMap.caption
    visible: stripeMap.available
    implicitHeight: grid.implicitHeight + 56
    SystemPalette { id: pal }
    StripeMap { id: stripeMap; session: card.session; stripes: 6 }

    function cellColor(text) {
        if (text === "P") return Theme.parityP
        if (text === "Q") return Theme.parityQ
        return "transparent"
    }

    GridLayout {
        id: grid
        objectName: "stripeGrid"
        anchors { left: parent.left; right: parent.right; top: parent.top }
        columns: stripeMap.members.length + 1
        columnSpacing: 4
        rowSpacing: 4
        Label { text: qsTr("stripe"); opacity: 0.7 }
        Repeater {
            model: stripeMap.members
            Label {
                text: modelData
                elide: Text.ElideMiddle
                horizontalAlignment: Text.AlignHCenter
                Layout.fillWidth: true
                Layout.preferredWidth: 60
                opacity: 0.7
            }
        }
        Repeater {
            model: stripeMap.rows.length * (stripeMap.members.length + 1)
            delegate: Rectangle {
                readonly property int row: Math.floor(index / (stripeMap.members.length + 1))
                readonly property int col: index % (stripeMap.members.length + 1)
                readonly property string text: col === 0 ? String(row) : (stripeMap.rows[row] || [])[col - 1] || ""
                objectName: col === 0 ? "" : "stripeCell_" + row + "_" + (col - 1)
                Layout.fillWidth: col > 0
                Layout.preferredWidth: col === 0 ? 44 : 60
                implicitHeight: 24
                radius: 3
                color: col === 0 ? "transparent" : card.cellColor(text)
                border.color: col === 0 ? "transparent" : Qt.rgba(pal.windowText.r, pal.windowText.g, pal.windowText.b, 0.25)
                Label {
                    anchors.centerIn: parent
                    text: parent.text
                    font.bold: parent.text === "P" || parent.text === "Q"
                    color: parent.text === "P" || parent.text === "Q" ? "white" : pal.windowText
                    opacity: parent.col === 0 ? 0.7 : 1
                }
            }
        }
    }
}
